//! Deployment descriptors as configuration: docker-compose files and Kubernetes manifests
//! say which environment a service runs with, which host names reach it and which ports
//! it is published on.
//!
//! A compose service (`services.<name>`) gives its `environment` (list `KEY=value` or
//! map), its published host `ports` (`"8085:8080"`, `"127.0.0.1:8085:8080"`, the long
//! syntax's `published`), its `build` context (the module folder it builds), its `image`,
//! and the host names other containers reach it by (the service name, `container_name`,
//! `hostname`, network `aliases`). Compose's own interpolation is followed as far as the
//! file says: `${VAR:-default}` and `${VAR-default}` take the default, `${VAR}` the
//! repository's `.env` value. A Kubernetes workload (`Deployment`, `StatefulSet`,
//! `DaemonSet`, `Job`, `CronJob`) gives its containers' `env` `name`/`value` pairs (never
//! `valueFrom`: a secret or a config map is not in the manifest), its images and names;
//! a `Service` whose `selector` matches a workload's pod labels is a host name of it.
//!
//! Which module of the repository a descriptor deploys is decided by the pipeline (by
//! build context, then image or name); this reader knows no modules. Like every
//! front-end it never fails: a broken document is a warning and the rest still counts.

use std::collections::BTreeMap;

use super::{ConfigEntry, ConfigWarning};
use crate::walk::is_compose_file;

/// One deployed unit: a compose service or a Kubernetes workload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Deployment {
    /// The descriptor file (repository-relative).
    pub(crate) file: String,
    /// The compose service's or the workload's name.
    pub(crate) name: String,
    /// Line of its declaration.
    pub(crate) line: u32,
    /// The folder its image is built from, relative to the repository root (compose
    /// `build`), normalised (`./billing/` → `billing`, the root is `""`).
    pub(crate) build: Option<String>,
    /// Image names without registry, tag or digest (`acme/billing-core:1.2` → `billing-core`).
    pub(crate) images: Vec<String>,
    /// Other names that may name the service it runs (container names).
    pub(crate) names: Vec<String>,
    /// Host names other services reach it by.
    pub(crate) hosts: Vec<String>,
    /// Ports published on the host.
    pub(crate) ports: Vec<u16>,
    /// Environment entries, keys as written (`BILLING_BASEURL`).
    pub(crate) env: Vec<ConfigEntry>,
}

/// The deployments one descriptor declares. `rel` is its repository-relative path, `env`
/// looks a compose interpolation variable up in the repository's `.env` files.
pub(crate) fn parse_deployments(
    rel: &str,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<ConfigWarning>,
) -> Vec<Deployment> {
    let documents = super::yaml::parse(text, warnings);
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if is_compose_file(name) {
        let dir = rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        return documents.iter().flat_map(|d| compose(rel, dir, d, env)).collect();
    }
    kubernetes(rel, &documents)
}

/// The entries of a document under `prefix.` with the prefix taken off, in order.
fn under<'e>(doc: &'e [ConfigEntry], prefix: &str) -> Vec<(&'e str, &'e ConfigEntry)> {
    doc.iter()
        .filter_map(|e| {
            let rest = e.key.strip_prefix(prefix)?;
            let rest = rest
                .strip_prefix('.')
                .or_else(|| rest.starts_with('[').then_some(rest))?;
            Some((rest, e))
        })
        .collect()
}

/// Compose's interpolation: `${VAR:-default}`/`${VAR-default}` → the variable's `.env`
/// value, else the default; `${VAR}`/`$VAR` → the `.env` value, else left as written; `$$`
/// is `$`.
fn interpolate(value: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        if let Some(body) = after.strip_prefix('{') {
            let Some(end) = body.find('}') else {
                out.push_str(&rest[i..]);
                return out;
            };
            let inner = &body[..end];
            let (var, default) = match inner.find([':', '-', '?', '+']) {
                Some(p) => {
                    let op = inner[p..].trim_start_matches(':');
                    let default = op.strip_prefix('-').map(str::to_string);
                    (&inner[..p], default)
                }
                None => (inner, None),
            };
            match env(var).filter(|v| !v.is_empty()).or(default) {
                Some(v) => out.push_str(&v),
                None => {
                    out.push_str("${");
                    out.push_str(inner);
                    out.push('}');
                }
            }
            rest = &body[end + 1..];
            continue;
        }
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        match (len, env(&after[..len])) {
            (0, _) => out.push('$'),
            (_, Some(v)) => out.push_str(&v),
            (_, None) => {
                out.push('$');
                out.push_str(&after[..len]);
            }
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// `dir` joined with a relative `path`, `.` and `..` applied; `None` when it leaves the
/// repository.
fn join_dir(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    if path.starts_with('/') || path.contains("://") {
        return None;
    }
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// `registry:5000/acme/billing-core:1.2@sha256:…` → `billing-core`.
fn image_name(image: &str) -> Option<String> {
    let no_digest = image.split('@').next().unwrap_or(image);
    let last = no_digest.rsplit('/').next().unwrap_or(no_digest);
    let name = last.split(':').next().unwrap_or(last).trim();
    (!name.is_empty() && !name.contains('$')).then(|| name.to_string())
}

/// The host port of a compose short-syntax port: `"8085:8080"`, `"127.0.0.1:8085:8080"`,
/// `"8085:8080/tcp"`; `None` for a container port alone or a range.
fn published_port(spec: &str) -> Option<u16> {
    let spec = spec.split('/').next().unwrap_or(spec).trim();
    let parts: Vec<&str> = spec.rsplitn(3, ':').collect();
    // rsplitn: [container, host, ip?]
    let host = parts.get(1)?;
    host.parse::<u16>().ok().filter(|&p| p > 0)
}

fn compose(
    rel: &str,
    dir: &str,
    doc: &[ConfigEntry],
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<Deployment> {
    let mut services: BTreeMap<String, Deployment> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (rest, e) in under(doc, "services") {
        let Some((name, field)) = rest.split_once(['.', '[']).map(|(n, _)| (n, &rest[n.len()..])) else {
            continue;
        };
        let field = field.strip_prefix('.').unwrap_or(field);
        let d = services.entry(name.to_string()).or_insert_with(|| {
            order.push(name.to_string());
            Deployment {
                file: rel.to_string(),
                name: name.to_string(),
                line: e.line,
                hosts: vec![name.to_string()],
                ..Deployment::default()
            }
        });
        let value = interpolate(&e.value, env);
        if field == "build" || field == "build.context" {
            d.build = join_dir(dir, &value);
        } else if field == "image" {
            d.images.extend(image_name(&value));
        } else if field == "container_name" || field == "hostname" {
            d.names.push(value.clone());
            d.hosts.push(value);
        } else if field.starts_with("networks.") && field.contains(".aliases[") {
            d.hosts.push(value);
        } else if let Some(item) = field.strip_prefix("environment") {
            // `environment[0]: KEY=value` or `environment.KEY: value`.
            let (key, value) = match item.strip_prefix('.') {
                Some(key) => (key.to_string(), value),
                None => match value.split_once('=') {
                    Some((k, v)) => (k.trim().to_string(), v.to_string()),
                    None => continue,
                },
            };
            if !key.is_empty() {
                d.env.push(ConfigEntry {
                    key,
                    value,
                    profile: None,
                    line: e.line,
                });
            }
        } else if let Some(item) = field.strip_prefix("ports") {
            let port = if item.ends_with(".published") {
                value.parse::<u16>().ok()
            } else if item.ends_with(']') {
                published_port(&value)
            } else {
                None
            };
            d.ports.extend(port.filter(|p| !d.ports.contains(p)));
        }
    }
    order.into_iter().filter_map(|n| services.remove(&n)).collect()
}

/// One `env` entry of a container as read so far: its name, value and line.
type EnvSlot = (Option<String>, Option<String>, u32);

/// Workload kinds whose pod template runs a service.
const WORKLOADS: &[&str] = &["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"];

fn kubernetes(rel: &str, documents: &[Vec<ConfigEntry>]) -> Vec<Deployment> {
    let value = |doc: &[ConfigEntry], key: &str| doc.iter().find(|e| e.key == key).map(|e| e.value.clone());
    let mut workloads: Vec<(Deployment, Vec<(String, String)>)> = Vec::new();
    let mut services: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for doc in documents {
        let Some(kind) = value(doc, "kind") else {
            continue;
        };
        if value(doc, "apiVersion").is_none() {
            continue;
        }
        let name = value(doc, "metadata.name").unwrap_or_default();
        let line = doc.iter().find(|e| e.key == "kind").map_or(0, |e| e.line);
        if kind == "Service" {
            let selector: Vec<(String, String)> = under(doc, "spec.selector")
                .into_iter()
                .map(|(k, e)| (k.to_string(), e.value.clone()))
                .collect();
            if !name.is_empty() && !selector.is_empty() {
                services.push((name, selector));
            }
            continue;
        }
        let template = if kind == "CronJob" {
            "spec.jobTemplate.spec.template"
        } else if WORKLOADS.contains(&kind.as_str()) {
            "spec.template"
        } else {
            continue;
        };
        let labels: Vec<(String, String)> = under(doc, &format!("{template}.metadata.labels"))
            .into_iter()
            .map(|(k, e)| (k.to_string(), e.value.clone()))
            .collect();
        let mut d = Deployment {
            file: rel.to_string(),
            name: name.clone(),
            line,
            ..Deployment::default()
        };
        if !name.is_empty() {
            d.names.push(name);
        }
        // containers[i].env[j].name / .value, by (container, entry).
        let mut env: BTreeMap<(usize, usize), EnvSlot> = BTreeMap::new();
        for (rest, e) in under(doc, &format!("{template}.spec.containers")) {
            let Some((index, field)) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) else {
                continue;
            };
            let field = field.strip_prefix('.').unwrap_or(field);
            if field == "name" {
                d.names.push(e.value.clone());
            } else if field == "image" {
                d.images.extend(image_name(&e.value));
            } else if let Some(item) = field.strip_prefix("env[") {
                let Some((j, what)) = item.split_once("].") else {
                    continue;
                };
                let (Ok(i), Ok(j)) = (index.parse::<usize>(), j.parse::<usize>()) else {
                    continue;
                };
                let slot = env.entry((i, j)).or_insert((None, None, e.line));
                match what {
                    "name" => {
                        slot.0 = Some(e.value.clone());
                        slot.2 = e.line;
                    }
                    "value" => slot.1 = Some(e.value.clone()),
                    _ => {}
                }
            }
        }
        for (key, value, line) in env.into_values() {
            if let (Some(key), Some(value)) = (key, value) {
                d.env.push(ConfigEntry {
                    key,
                    value,
                    profile: None,
                    line,
                });
            }
        }
        workloads.push((d, labels));
    }
    for (service, selector) in services {
        let matching: Vec<usize> = workloads
            .iter()
            .enumerate()
            .filter(|(_, (_, labels))| selector.iter().all(|s| labels.contains(s)))
            .map(|(i, _)| i)
            .collect();
        if let [only] = matching.as_slice() {
            workloads[*only].0.hosts.push(service);
        }
    }
    workloads.into_iter().map(|(d, _)| d).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(rel: &str, text: &str) -> (Vec<Deployment>, Vec<ConfigWarning>) {
        let mut warnings = Vec::new();
        let env = |k: &str| (k == "BILLING_PORT").then(|| "9085".to_string());
        (parse_deployments(rel, text, &env, &mut warnings), warnings)
    }

    #[test]
    fn compose_services_give_environment_ports_builds_and_hosts() {
        let (d, warnings) = read(
            "deploy/docker-compose.yml",
            r#"
services:
  billing-core:
    build: ../billing
    container_name: billing
    ports:
      - "${BILLING_PORT:-8085}:8080"
      - "127.0.0.1:8086:8081/tcp"
      - "9000"
    environment:
      - SPRING_PROFILES_ACTIVE=docker
      - LEDGER_URL=http://ledger:${LEDGER_PORT:-8090}
  orders:
    image: registry.acme.example:5000/acme/orders-service:1.4
    build:
      context: ../orders
    ports:
      - target: 8080
        published: 8081
    environment:
      BILLING_BASEURL: http://billing-core:8080
    networks:
      back:
        aliases: [orders-api]
"#,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].name, "billing-core");
        assert_eq!(d[0].build.as_deref(), Some("billing"));
        assert_eq!(d[0].ports, vec![9085, 8086]);
        assert_eq!(d[0].hosts, vec!["billing-core", "billing"]);
        let env: Vec<(&str, &str)> = d[0]
            .env
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(
            env,
            vec![
                ("SPRING_PROFILES_ACTIVE", "docker"),
                ("LEDGER_URL", "http://ledger:8090")
            ]
        );
        assert_eq!(d[1].build.as_deref(), Some("orders"));
        assert_eq!(d[1].images, vec!["orders-service"]);
        assert_eq!(d[1].ports, vec![8081]);
        assert_eq!(d[1].hosts, vec!["orders", "orders-api"]);
        assert_eq!(d[1].env[0].key, "BILLING_BASEURL");
        assert_eq!(d[1].env[0].value, "http://billing-core:8080");
    }

    #[test]
    fn kubernetes_workloads_give_env_and_services_that_select_them_give_hosts() {
        let (d, _) = read(
            "k8s/billing.yaml",
            r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: billing
spec:
  template:
    metadata:
      labels:
        app: billing
        tier: back
    spec:
      containers:
        - name: billing-core
          image: acme/billing-core:2.0
          env:
            - name: LEDGER_URL
              value: http://ledger:8090
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef: {name: db, key: password}
---
apiVersion: v1
kind: Service
metadata:
  name: billing-svc
spec:
  selector:
    app: billing
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: nothing-selected
spec:
  selector:
    app: other
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  X: y
"#,
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].names, vec!["billing", "billing-core"]);
        assert_eq!(d[0].images, vec!["billing-core"]);
        assert_eq!(d[0].hosts, vec!["billing-svc"]);
        let env: Vec<(&str, &str)> = d[0]
            .env
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(
            env,
            vec![("LEDGER_URL", "http://ledger:8090")],
            "valueFrom is no value"
        );
    }

    #[test]
    fn compose_names_and_interpolation() {
        assert!(is_compose_file("docker-compose.yml"));
        assert!(is_compose_file("docker-compose.prod.yaml"));
        assert!(is_compose_file("compose.yaml"));
        assert!(!is_compose_file("composer.yml"));
        assert!(!is_compose_file("application.yml"));
        let env = |k: &str| (k == "A").then(|| "1".to_string());
        assert_eq!(interpolate("x${A}y$A-$$-${B:-d}-${B}", &env), "x1y1-$-d-${B}");
        assert_eq!(join_dir("deploy", "../billing/"), Some("billing".into()));
        assert_eq!(join_dir("", "../x"), None);
        assert_eq!(published_port("8085"), None);
        assert_eq!(published_port("8000-8005:8000-8005"), None);
    }
}
