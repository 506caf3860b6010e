//! Who is calling: the `[server]` table of `semgraph.toml`, and request headers → a
//! [`Caller`].
//!
//! The caller's area comes from its credentials, never from a parameter it controls:
//!
//! ```toml
//! [server]
//! bind = "0.0.0.0:7420"
//!
//! [[server.token]]              # a caller of one area ("*" = every area, and admin)
//! token_env = "SEMGRAPH_TOKEN_COMMERCE"   # or: token = "…"
//! area = "commerce"
//!
//! [[server.gateway]]            # a gateway asserts its caller's area in X-Semgraph-Area
//! token_env = "SEMGRAPH_GATEWAY_TOKEN"
//! area = "platform"             # optional: the area when the header is absent
//! ```
//!
//! The same table sets the server's limits (`request_timeout_secs`, `max_body_bytes`,
//! `max_concurrent_recipes`, `recipe_queue`, `recipe_queue_wait_secs`; see `limits.rs`)
//! and the sizes of its caches (`block_cache_bytes`, `document_cache_bytes`; see
//! [`MemoryConfig`]), checked here with the rest so that one unknown or out-of-range key is
//! one error.
//!
//! A request sends `Authorization: Bearer <token>`. A token of `[[server.token]]` gives its
//! area (an area header is ignored); a gateway token gives the area named by the
//! [`AREA_HEADER`] header (one area, never `*`). With no token configured the server
//! serves one local user with full access, and only on loopback. Tokens are compared in
//! constant time and never logged or printed (`Debug` shows how many there are).

use axum::http::{header, HeaderMap};
use semgraph_queries::Caller;
use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::limits::{LimitsConfig, RawLimits};
use crate::answer::Problem;

/// The header in which a gateway asserts its caller's area.
pub const AREA_HEADER: &str = "x-semgraph-area";
/// The area of a token that may read every area's content and run admin jobs.
pub const ALL_AREAS: &str = "*";

/// The `[server]` table of `semgraph.toml`, checked.
#[derive(Clone, Debug, Default)]
pub struct ServerConfig {
    /// `bind`: the address to listen on, when the command line does not say.
    pub bind: Option<String>,
    /// The credentials.
    pub auth: Auth,
    /// The request limits.
    pub limits: LimitsConfig,
    /// The sizes of the caches.
    pub memory: MemoryConfig,
}

/// What the server keeps in memory besides the served graph, each bounded by a `[server]`
/// key. The graph itself (in-memory adjacency, per-product node sets) is sized by the
/// store's contents, not by configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryConfig {
    /// `block_cache_bytes`: RocksDB's block cache (node records, names, content, and the
    /// index and filter blocks of the table files). The files stay in the operating
    /// system's page cache either way.
    pub block_cache_bytes: usize,
    /// `document_cache_bytes`: computed documents kept for the next asker of the same
    /// question (0: none).
    pub document_cache_bytes: usize,
}

impl Default for MemoryConfig {
    fn default() -> MemoryConfig {
        MemoryConfig {
            block_cache_bytes: semgraph_storage::DEFAULT_BLOCK_CACHE_BYTES,
            document_cache_bytes: super::cache::DEFAULT_CACHE_BYTES,
        }
    }
}

/// The largest cache size a key accepts: 1 TiB.
const MAX_CACHE_BYTES: u64 = 1 << 40;

fn cache_bytes(key: &str, value: Option<u64>, default: usize) -> Result<usize, ConfigError> {
    match value {
        None => Ok(default),
        Some(n) if n <= MAX_CACHE_BYTES => {
            usize::try_from(n).map_err(|_| ConfigError(format!("{key} = {n} is too large")))
        }
        Some(n) => Err(ConfigError(format!(
            "{key} = {n}: give a number of bytes of at most {MAX_CACHE_BYTES} (1 TiB)"
        ))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    bind: Option<String>,
    #[serde(default, rename = "token")]
    tokens: Vec<RawToken>,
    #[serde(default, rename = "gateway")]
    gateways: Vec<RawGateway>,
    request_timeout_secs: Option<f64>,
    max_body_bytes: Option<u64>,
    max_concurrent_recipes: Option<u64>,
    recipe_queue: Option<u64>,
    recipe_queue_wait_secs: Option<f64>,
    block_cache_bytes: Option<u64>,
    document_cache_bytes: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToken {
    token: Option<String>,
    token_env: Option<String>,
    area: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGateway {
    token: Option<String>,
    token_env: Option<String>,
    area: Option<String>,
}

/// A configuration error of the `[server]` table.
#[derive(Debug, thiserror::Error)]
#[error("[server] in semgraph.toml: {0}")]
pub struct ConfigError(String);

fn secret(token: Option<String>, token_env: Option<String>, which: &str) -> Result<Vec<u8>, ConfigError> {
    let value = match (token, token_env) {
        (Some(t), None) => t,
        (None, Some(var)) => std::env::var(&var).map_err(|_| {
            ConfigError(format!(
                "{which}: the environment variable {var} named by token_env is not set"
            ))
        })?,
        (Some(_), Some(_)) => return Err(ConfigError(format!("{which}: give token or token_env, not both"))),
        (None, None) => return Err(ConfigError(format!("{which}: needs token or token_env"))),
    };
    let value = value.trim();
    if value.len() < 8 {
        return Err(ConfigError(format!(
            "{which}: a token must be at least 8 characters"
        )));
    }
    Ok(value.as_bytes().to_vec())
}

impl ServerConfig {
    /// Reads the `[server]` table (absent: no auth, default bind). Unknown keys are
    /// errors that name them; `token_env` variables are read now.
    pub fn from_table(table: Option<&toml::Table>) -> Result<ServerConfig, ConfigError> {
        let Some(table) = table else {
            return Ok(ServerConfig::default());
        };
        let raw: RawServer = toml::Value::Table(table.clone())
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError(e.message().to_string()))?;
        let limits = RawLimits {
            request_timeout_secs: raw.request_timeout_secs,
            max_body_bytes: raw.max_body_bytes,
            max_concurrent_recipes: raw.max_concurrent_recipes,
            recipe_queue: raw.recipe_queue,
            recipe_queue_wait_secs: raw.recipe_queue_wait_secs,
        }
        .check()
        .map_err(ConfigError)?;
        let defaults = MemoryConfig::default();
        let memory = MemoryConfig {
            block_cache_bytes: cache_bytes(
                "block_cache_bytes",
                raw.block_cache_bytes,
                defaults.block_cache_bytes,
            )?,
            document_cache_bytes: cache_bytes(
                "document_cache_bytes",
                raw.document_cache_bytes,
                defaults.document_cache_bytes,
            )?,
        };
        let mut credentials = Vec::new();
        for (i, t) in raw.tokens.into_iter().enumerate() {
            let which = format!("[[server.token]] #{}", i + 1);
            let area = t.area.trim().to_string();
            if area.is_empty() {
                return Err(ConfigError(format!("{which}: area is empty")));
            }
            credentials.push(Credential {
                secret: secret(t.token, t.token_env, &which)?,
                grant: Grant::Area(area),
            });
        }
        for (i, g) in raw.gateways.into_iter().enumerate() {
            let which = format!("[[server.gateway]] #{}", i + 1);
            credentials.push(Credential {
                secret: secret(g.token, g.token_env, &which)?,
                grant: Grant::Gateway {
                    default_area: g.area.map(|a| a.trim().to_string()).filter(|a| !a.is_empty()),
                },
            });
        }
        Ok(ServerConfig {
            bind: raw.bind,
            auth: Auth { credentials },
            limits,
            memory,
        })
    }
}

#[derive(Clone)]
enum Grant {
    Area(String),
    Gateway { default_area: Option<String> },
}

#[derive(Clone)]
struct Credential {
    secret: Vec<u8>,
    grant: Grant,
}

/// The server's credentials: none (one local user with full access) or a set of tokens.
#[derive(Clone, Default)]
pub struct Auth {
    credentials: Vec<Credential>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("tokens", &self.credentials.len())
            .finish()
    }
}

/// Why a request has no caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthRejection {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token no credential matches.
    Unknown,
    /// A gateway token without (or with an unusable) area header.
    NoArea(String),
}

impl AuthRejection {
    /// The 401 answer.
    pub fn problem(&self) -> Problem {
        let why = match self {
            AuthRejection::Missing => {
                "this server needs a token: send `Authorization: Bearer <token>`.".to_string()
            }
            AuthRejection::Unknown => "the token is not one this server knows.".to_string(),
            AuthRejection::NoArea(why) => why.clone(),
        };
        Problem {
            status: 401,
            code: "unauthorized",
            body: format!(
                "# 401: unauthorized\n\n{why}\n\nAsk whoever runs this semgraph server for a token of \
                 your area.\n"
            ),
        }
    }
}

impl Auth {
    /// No credentials: every request is the local user, with full access.
    pub fn none() -> Auth {
        Auth::default()
    }

    /// True when tokens are configured (and thus required).
    pub fn is_configured(&self) -> bool {
        !self.credentials.is_empty()
    }

    /// The caller a request's headers identify: `Authorization: Bearer <token>`, and for a
    /// gateway token the [`AREA_HEADER`]. Without configured tokens, full access.
    pub fn caller(&self, headers: &HeaderMap) -> Result<Caller, AuthRejection> {
        if !self.is_configured() {
            return Ok(Caller::full_access());
        }
        let token = bearer(headers).ok_or(AuthRejection::Missing)?;
        match &self.credential(token).ok_or(AuthRejection::Unknown)?.grant {
            Grant::Area(area) if area == ALL_AREAS => Ok(Caller::full_access()),
            Grant::Area(area) => Ok(Caller::of_area(area.clone())),
            Grant::Gateway { default_area } => {
                let asserted = headers
                    .get(AREA_HEADER)
                    .map(|v| v.to_str().map(|s| s.trim().to_string()));
                match asserted {
                    Some(Ok(area)) if area == ALL_AREAS => Err(AuthRejection::NoArea(format!(
                        "a gateway asserts one area in `{AREA_HEADER}`, never `{ALL_AREAS}`."
                    ))),
                    Some(Ok(area)) if !area.is_empty() => Ok(Caller::of_area(area)),
                    _ => match default_area {
                        Some(area) => Ok(Caller::of_area(area.clone())),
                        None => Err(AuthRejection::NoArea(format!(
                            "a gateway token needs the caller's area in the `{AREA_HEADER}` header."
                        ))),
                    },
                }
            }
        }
    }
}

impl Auth {
    /// True when the request's bearer token is a gateway credential: one that may assert
    /// its caller's area (the MCP layer presents a gateway's `caller_area` only then).
    pub fn is_gateway(&self, headers: &HeaderMap) -> bool {
        bearer(headers)
            .and_then(|token| self.credential(token))
            .is_some_and(|c| matches!(c.grant, Grant::Gateway { .. }))
    }

    /// The credential whose secret is `token`. Every credential is compared, without
    /// stopping at a match, so the time taken says nothing about which one (or how much of
    /// one) matched.
    fn credential(&self, token: &str) -> Option<&Credential> {
        let mut found: Option<&Credential> = None;
        for c in &self.credentials {
            if bool::from(c.secret.as_slice().ct_eq(token.as_bytes())) && found.is_none() {
                found = Some(c);
            }
        }
        found
    }
}

/// The token of `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn config(text: &str) -> Result<ServerConfig, ConfigError> {
        let table: toml::Table = toml::from_str(text).expect("toml");
        ServerConfig::from_table(table.get("server").and_then(|v| v.as_table()))
    }

    fn headers(token: Option<&str>, area: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(t) = token {
            h.insert(
                header::AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {t}")).expect("header"),
            );
        }
        if let Some(a) = area {
            h.insert(AREA_HEADER, HeaderValue::from_str(a).expect("header"));
        }
        h
    }

    #[test]
    fn tokens_map_to_areas_and_gateways_assert_them() {
        let c = config(
            r#"
            [server]
            bind = "0.0.0.0:7420"
            [[server.token]]
            token = "commerce-secret"
            area = "commerce"
            [[server.token]]
            token = "admin-secret"
            area = "*"
            [[server.gateway]]
            token = "gateway-secret"
            "#,
        )
        .expect("valid");
        assert_eq!(c.bind.as_deref(), Some("0.0.0.0:7420"));
        let a = &c.auth;
        assert!(a.is_configured());
        assert_eq!(a.caller(&headers(None, None)), Err(AuthRejection::Missing));
        assert_eq!(
            a.caller(&headers(Some("nope-nope"), None)),
            Err(AuthRejection::Unknown)
        );
        assert_eq!(
            a.caller(&headers(Some("commerce-secret"), Some("finance"))),
            Ok(Caller::of_area("commerce"))
        );
        assert_eq!(
            a.caller(&headers(Some("admin-secret"), None)),
            Ok(Caller::full_access())
        );
        assert_eq!(
            a.caller(&headers(Some("gateway-secret"), Some("finance"))),
            Ok(Caller::of_area("finance"))
        );
        assert!(matches!(
            a.caller(&headers(Some("gateway-secret"), None)),
            Err(AuthRejection::NoArea(_))
        ));
        assert!(matches!(
            a.caller(&headers(Some("gateway-secret"), Some("*"))),
            Err(AuthRejection::NoArea(_))
        ));
        assert!(a.is_gateway(&headers(Some("gateway-secret"), None)));
        assert!(!a.is_gateway(&headers(Some("commerce-secret"), Some("finance"))));
        assert!(!a.is_gateway(&headers(None, None)));
        assert!(!format!("{a:?}").contains("secret"));
    }

    #[test]
    fn bad_server_tables_are_refused_with_a_reason() {
        let err = config("[server]\nbnd = \"x\"\n").expect_err("unknown key");
        assert!(err.to_string().contains("bnd"), "{err}");
        let err = config("[[server.token]]\narea = \"a\"\n").expect_err("no token");
        assert!(err.to_string().contains("token or token_env"), "{err}");
        let err = config("[[server.token]]\ntoken_env = \"SEMGRAPH_SURELY_UNSET_VAR\"\narea = \"a\"\n")
            .expect_err("unset env");
        assert!(err.to_string().contains("SEMGRAPH_SURELY_UNSET_VAR"), "{err}");
        assert!(!config("").expect("empty").auth.is_configured());
    }

    #[test]
    fn the_cache_sizes_are_server_keys_with_defaults() {
        let c = config("[server]\nblock_cache_bytes = 16777216\ndocument_cache_bytes = 0\n").expect("valid");
        assert_eq!(
            c.memory,
            MemoryConfig {
                block_cache_bytes: 16 << 20,
                document_cache_bytes: 0
            }
        );
        assert_eq!(config("").expect("empty").memory, MemoryConfig::default());
        assert_eq!(
            MemoryConfig::default(),
            MemoryConfig {
                block_cache_bytes: 64 << 20,
                document_cache_bytes: 64 << 20
            }
        );
        let err = config("[server]\nblock_cache_bytes = -1\n").expect_err("negative");
        assert!(err.to_string().contains("-1"), "{err}");
        let err = config("[server]\ndocument_cache_bytes = 2000000000000000\n").expect_err("too large");
        assert!(err.to_string().contains("document_cache_bytes"), "{err}");
        let err = config("[server]\nblock_cache_size = 1\n").expect_err("unknown key");
        assert!(err.to_string().contains("block_cache_size"), "{err}");
    }
}
