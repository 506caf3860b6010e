//! Configuration a Spring Cloud Config server serves from the repository: with its `native`
//! backend, files named `{application}[-{profile}].yml|yaml|properties` in the server's
//! search locations configure the service whose `spring.application.name` is
//! `{application}`, and `application[-{profile}].*` there configures every client of the
//! server. A service started with them sees their keys above its own files (remote
//! property sources come first), so a service's context path, port or a `@Value` key is
//! often set only there — the shared folder of a config server module, not the service's
//! own `src/main/resources`.
//!
//! Only what the sources fix counts: `classpath:` locations (the server module's
//! resources) and relative `file:` paths inside the repository. A git backend, an absolute
//! or user-home path, or a location naming `{profile}` or `{label}` serves files this run
//! cannot see; those locations are said in a warning, never guessed.
//!
//! This module decides which file configures which module; reading the files is the
//! caller's, and so is placing them in each module's scope.

/// What the pipeline knows of one deployable module, for deciding what a config server
/// serves.
#[derive(Debug, Clone)]
pub(crate) struct ConfigModule<'a> {
    /// Folder relative to the repository root ("" for the root).
    pub(crate) dir: &'a str,
    /// Its service name.
    pub(crate) service: &'a str,
    /// Its settings when it is a Spring Cloud Config server.
    pub(crate) server: Option<ServerSettings>,
    /// Whether it fetches its configuration from a config server (`spring.config.import:
    /// configserver:…`, `spring.cloud.config.uri`, or the config client on its build path).
    pub(crate) client: bool,
}

/// A config server's backend settings, placeholders resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ServerSettings {
    /// `spring.cloud.config.server.native.search-locations`, when set.
    pub(crate) search_locations: Option<String>,
    /// Whether the `native` profile is active (`spring.profiles.active`), which selects the
    /// file-system backend.
    pub(crate) native: bool,
}

/// Who a served file configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Served {
    /// The file, repository-relative.
    pub(crate) rel: String,
    /// The module folders it configures (several for a shared `application.yml`).
    pub(crate) modules: Vec<String>,
    /// The profile its name gives it (`billing-service-docker.yml` → `docker`).
    pub(crate) profile: Option<String>,
}

/// What the server modules serve, and a warning for each location outside the sources
/// (the module's folder and the message).
pub(crate) fn served_files(
    modules: &[ConfigModule<'_>],
    files: &[&str],
) -> (Vec<Served>, Vec<(String, String)>) {
    let mut served: Vec<Served> = Vec::new();
    let mut warnings = Vec::new();
    for server in modules {
        let Some(settings) = &server.server else {
            continue;
        };
        let locations: Vec<String> = match &settings.search_locations {
            Some(list) => list
                .split(',')
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect(),
            None if settings.native => vec!["classpath:/".into(), "classpath:/config/".into()],
            None => continue,
        };
        let resources = join(server.dir, "src/main/resources");
        for location in &locations {
            let Some(dirs) = location_dirs(server.dir, &resources, location) else {
                warnings.push((
                    server.dir.to_string(),
                    format!(
                        "config server search location `{location}` is outside the repository's sources; what it serves is not indexed"
                    ),
                ));
                continue;
            };
            for rel in files {
                let Some((folder, name)) = rel.rsplit_once('/') else {
                    continue;
                };
                let Some((stem, ext)) = name.rsplit_once('.') else {
                    continue;
                };
                if !matches!(ext, "yml" | "yaml" | "properties") {
                    continue;
                }
                for dir in &dirs {
                    let Some(app) = dir.matches(folder) else {
                        continue;
                    };
                    // The server's own files, where it would serve them at its classpath root.
                    if folder == resources
                        && (stem.starts_with("application") || stem.starts_with("bootstrap"))
                    {
                        continue;
                    }
                    if let Some(s) = served_file(modules, server, rel, stem, app) {
                        if !served.iter().any(|o| o.rel == s.rel) {
                            served.push(s);
                        }
                    }
                }
            }
        }
    }
    served.sort_by(|a, b| a.rel.cmp(&b.rel));
    (served, warnings)
}

/// A search location as a folder of the repository: fixed, or one folder per application
/// (`classpath:/config/{application}`).
enum LocationDir {
    Fixed(String),
    PerApplication { before: String, after: String },
}

impl LocationDir {
    /// Whether `folder` is this location; `Some(Some(app))` when the folder names the
    /// application.
    fn matches<'f>(&self, folder: &'f str) -> Option<Option<&'f str>> {
        match self {
            LocationDir::Fixed(d) => (d == folder).then_some(None),
            LocationDir::PerApplication { before, after } => {
                let app = folder
                    .strip_prefix(before.as_str())?
                    .strip_suffix(after.as_str())?;
                (!app.is_empty() && !app.contains('/')).then_some(Some(app))
            }
        }
    }
}

/// The repository folders a location names; `None` when it is outside the sources.
fn location_dirs(module: &str, resources: &str, location: &str) -> Option<Vec<LocationDir>> {
    if location.contains("{profile}") || location.contains("{label}") || location.contains("${") {
        return None;
    }
    let (base, path): (Vec<String>, &str) = if let Some(p) = location.strip_prefix("classpath:") {
        (vec![resources.to_string()], p)
    } else if let Some(p) = location.strip_prefix("file:") {
        let p = p.strip_prefix("//").unwrap_or(p);
        if p.starts_with('/') || p.starts_with('~') || p.contains(':') {
            return None;
        }
        // A relative path is relative to where the server starts: its module, or the
        // repository root.
        let mut bases = vec![module.to_string()];
        if !module.is_empty() {
            bases.push(String::new());
        }
        (bases, p)
    } else if location.contains(':') {
        return None;
    } else {
        (vec![resources.to_string()], location)
    };
    let path = path.trim_start_matches("./").trim_matches('/');
    if path.split('/').any(|s| s == "..") {
        return None;
    }
    Some(
        base.iter()
            .map(|b| match path.split_once("{application}") {
                Some((before, after)) => LocationDir::PerApplication {
                    before: with_slash(&join(b, before.trim_end_matches('/'))),
                    after: after.trim_end_matches('/').to_string(),
                },
                None => LocationDir::Fixed(join(b, path)),
            })
            .collect(),
    )
}

/// Who the file `stem` in a location configures; `app` is the application its folder names.
fn served_file(
    modules: &[ConfigModule<'_>],
    server: &ConfigModule<'_>,
    rel: &str,
    stem: &str,
    app: Option<&str>,
) -> Option<Served> {
    let others = || modules.iter().filter(|m| m.dir != server.dir);
    let clients = || -> Vec<String> { others().filter(|m| m.client).map(|m| m.dir.to_string()).collect() };
    let profile_of = |rest: &str| {
        rest.strip_prefix('-')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
    };
    let shared = stem == "application" || stem.starts_with("application-");
    let (modules, profile) = match app {
        Some(app) => {
            let target: Vec<String> = others()
                .filter(|m| m.service == app)
                .map(|m| m.dir.to_string())
                .collect();
            let rest = if shared {
                &stem["application".len()..]
            } else {
                stem.strip_prefix(app)?
            };
            if !rest.is_empty() && !rest.starts_with('-') {
                return None;
            }
            (target, profile_of(rest))
        }
        None if shared => (clients(), profile_of(&stem["application".len()..])),
        None => {
            // The longest service name the stem starts with: `billing-service-docker` is
            // `billing-service` in profile `docker`, not `billing` in `service-docker`.
            let service = others()
                .map(|m| m.service)
                .filter(|s| stem == *s || stem.strip_prefix(s).is_some_and(|r| r.starts_with('-')))
                .max_by_key(|s| s.len())?;
            let target = others()
                .filter(|m| m.service == service)
                .map(|m| m.dir.to_string())
                .collect();
            (target, profile_of(&stem[service.len()..]))
        }
    };
    (!modules.is_empty()).then(|| Served {
        rel: rel.to_string(),
        modules,
        profile,
    })
}

fn join(dir: &str, path: &str) -> String {
    match (dir.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{path}"),
    }
}

fn with_slash(dir: &str) -> String {
    if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module<'a>(dir: &'a str, service: &'a str, client: bool) -> ConfigModule<'a> {
        ConfigModule {
            dir,
            service,
            server: None,
            client,
        }
    }

    fn server(locations: Option<&str>, native: bool) -> ConfigModule<'static> {
        ConfigModule {
            dir: "config",
            service: "config-server",
            server: Some(ServerSettings {
                search_locations: locations.map(str::to_string),
                native,
            }),
            client: false,
        }
    }

    fn targets(served: &[Served]) -> Vec<(String, Vec<String>, Option<String>)> {
        served
            .iter()
            .map(|s| (s.rel.clone(), s.modules.clone(), s.profile.clone()))
            .collect()
    }

    const FILES: &[&str] = &[
        "config/src/main/resources/application.yml",
        "config/src/main/resources/shared/application.yml",
        "config/src/main/resources/shared/billing.yml",
        "config/src/main/resources/shared/billing-service-docker.yml",
        "config/src/main/resources/shared/billing-service.properties",
        "config/src/main/resources/shared/unknown-service.yml",
        "config/src/main/resources/templates/billing-service.yml",
        "config/src/main/resources/config/billing-service.yml",
        "billing/src/main/resources/application.yml",
    ];

    #[test]
    fn files_named_after_a_service_configure_it_and_application_every_client() {
        let modules = [
            server(Some("classpath:/shared"), true),
            module("billing", "billing-service", true),
            module("bill", "billing", false),
            module("users", "users-service", false),
        ];
        let (served, warnings) = served_files(&modules, FILES);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            targets(&served),
            vec![
                (
                    "config/src/main/resources/shared/application.yml".into(),
                    vec!["billing".into()],
                    None
                ),
                (
                    "config/src/main/resources/shared/billing-service-docker.yml".into(),
                    vec!["billing".into()],
                    Some("docker".into())
                ),
                (
                    "config/src/main/resources/shared/billing-service.properties".into(),
                    vec!["billing".into()],
                    None
                ),
                (
                    "config/src/main/resources/shared/billing.yml".into(),
                    vec!["bill".into()],
                    None
                ),
            ]
        );
    }

    #[test]
    fn the_default_native_locations_leave_the_servers_own_files_alone() {
        let modules = [server(None, true), module("billing", "billing-service", true)];
        let (served, _) = served_files(&modules, FILES);
        assert_eq!(
            targets(&served),
            vec![(
                "config/src/main/resources/config/billing-service.yml".into(),
                vec!["billing".into()],
                None
            )]
        );
    }

    #[test]
    fn a_server_without_the_native_backend_serves_nothing_from_the_sources() {
        let modules = [server(None, false), module("billing", "billing-service", true)];
        assert!(served_files(&modules, FILES).0.is_empty());
    }

    #[test]
    fn locations_outside_the_sources_are_said_and_per_application_folders_are_read() {
        let modules = [
            server(
                Some("file:/etc/config, file://${user.home}/repo, classpath:/{profile}, file:./repo/{application}"),
                true,
            ),
            module("billing", "billing-service", false),
        ];
        let files = [
            "repo/billing-service/application.yml",
            "repo/billing-service/billing-service-eu.yml",
            "repo/other/application.yml",
        ];
        let (served, warnings) = served_files(&modules, &files);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert_eq!(
            targets(&served),
            vec![
                (
                    "repo/billing-service/application.yml".into(),
                    vec!["billing".into()],
                    None
                ),
                (
                    "repo/billing-service/billing-service-eu.yml".into(),
                    vec!["billing".into()],
                    Some("eu".into())
                ),
            ]
        );
    }
}
