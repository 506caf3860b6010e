//! Shared by the process tests (crash safety, backups): the real `semgraph` binary run as a
//! child process over a store on disk, the fixture company in two versions ("before" and
//! "after", so two generations of a product answer differently), and a fingerprint of what
//! a served store answers, to tell whole generations apart from mixes.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_semgraph");

/// A hang guard for anything a test waits on: generous, never a timing assertion.
pub const HANG: Duration = Duration::from_secs(120);

/// The fixture company's folder.
pub fn acme() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/acme")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// What the "after" version adds to `orders`: a controller calling `placeOrder`.
const ORDERS_PROBE: &str = r#"package com.acme.orders.web;

import com.acme.orders.service.OrderService;
import com.acme.orders.web.dto.CreateOrderRequest;
import com.acme.orders.web.dto.OrderDto;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/probe")
public class ProbeController {
    private final OrderService orderService;

    public ProbeController(OrderService orderService) {
        this.orderService = orderService;
    }

    @PostMapping("/orders")
    public OrderDto replay(@RequestBody CreateOrderRequest request) {
        return orderService.placeOrder(request);
    }

    @GetMapping("/ping")
    public String ping() {
        return "pong";
    }
}
"#;

/// What the "after" version adds to `notifications`: an endpoint calling `send`.
const NOTIFICATIONS_PROBE: &str = r#"package com.acme.notifications.web;

import com.acme.notifications.channel.DeliveryResult;
import com.acme.notifications.service.NotificationService;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/probe-notifications")
public class ProbeNotificationController {
    private final NotificationService notificationService;

    public ProbeNotificationController(NotificationService notificationService) {
        this.notificationService = notificationService;
    }

    @PostMapping("/echo")
    public DeliveryResult echo(@RequestParam String recipient, @RequestParam String body) {
        return notificationService.send(recipient, body);
    }
}
"#;

/// The fixture company copied under `root` twice: `before/` as it is, `after/` with a new
/// controller in `orders` and in `notifications`. Returns the two configs.
pub fn two_versions(root: &Path) -> (PathBuf, PathBuf) {
    let before = root.join("before");
    let after = root.join("after");
    copy_tree(&acme(), &before);
    copy_tree(&acme(), &after);
    let orders = after.join("orders/orders-service/src/main/java/com/acme/orders/web");
    std::fs::write(orders.join("ProbeController.java"), ORDERS_PROBE).expect("write probe");
    let notifications = after.join("notifications/src/main/java/com/acme/notifications/web");
    std::fs::write(
        notifications.join("ProbeNotificationController.java"),
        NOTIFICATIONS_PROBE,
    )
    .expect("write probe");
    (before.join("semgraph.toml"), after.join("semgraph.toml"))
}

/// Runs `semgraph index --config CONFIG --store STORE` to completion.
pub fn index(config: &Path, store: &Path) {
    let out = Command::new(BIN)
        .arg("index")
        .arg("--config")
        .arg(config)
        .arg("--store")
        .arg(store)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run semgraph index");
    assert!(
        out.status.success(),
        "semgraph index failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A `semgraph serve` child on a loopback port; SIGKILLed when dropped.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The server's stderr (its log).
    pub log: PathBuf,
}

impl Served {
    /// Starts `semgraph serve --store STORE [--config CONFIG] --bind 127.0.0.1:0` and waits
    /// for its banner. The log goes to `log`.
    pub fn start(store: &Path, config: Option<&Path>, log: &Path) -> Served {
        let stderr = std::fs::File::create(log).expect("log file");
        let mut cmd = Command::new(BIN);
        cmd.arg("serve").arg("--store").arg(store);
        if let Some(config) = config {
            cmd.arg("--config").arg(config);
        }
        let mut child = cmd
            .args(["--bind", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .expect("spawn semgraph serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        // Reads the banner, then keeps draining stdout so the server never blocks on it.
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(at) = line.find(" on http://") {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(line[at + 4..].trim().to_string());
                    }
                }
            }
        });
        let base = match rx.recv_timeout(HANG) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "semgraph serve printed no banner; its log:\n{}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
        };
        Served {
            child,
            base,
            log: log.to_path_buf(),
        }
    }

    /// SIGKILLs the server and reaps it.
    pub fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A blocking HTTP client for the process tests (reqwest on its own small runtime).
pub struct Http {
    rt: tokio::runtime::Runtime,
    client: reqwest::Client,
}

impl Http {
    pub fn new() -> Http {
        Http {
            rt: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime"),
            client: reqwest::Client::builder().timeout(HANG).build().expect("client"),
        }
    }

    /// The runtime, for tests that run requests concurrently.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.rt
    }

    /// A clone of the client.
    pub fn client(&self) -> reqwest::Client {
        self.client.clone()
    }

    /// GET `url` with `query`, asking for JSON: status and body.
    pub fn get(&self, url: &str, query: &[(&str, &str)]) -> (u16, String) {
        let request = self
            .client
            .get(url)
            .query(query)
            .header("accept", "application/json");
        self.rt.block_on(send(request))
    }

    /// POST `url` with a JSON `body`, asking for JSON: status and body.
    pub fn post(&self, url: &str, body: &str) -> (u16, String) {
        let request = self
            .client
            .post(url)
            .header("accept", "application/json")
            .header("content-type", "application/json")
            .body(body.to_string());
        self.rt.block_on(send(request))
    }
}

/// Sends a request and reads the whole answer; a transport error is status 0.
pub async fn send(request: reqwest::RequestBuilder) -> (u16, String) {
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.text().await.unwrap_or_default())
        }
        Err(e) => (0, e.to_string()),
    }
}

/// The products of the fixture company, in the order the config lists them.
pub const PRODUCTS: [&str; 4] = ["orders", "inventory", "payments", "notifications"];

/// One method per product whose callers the fingerprint records.
const CALLEES: [(&str, &str); 4] = [
    ("orders", "com.acme.orders.service.OrderService.placeOrder"),
    (
        "inventory",
        "com.acme.inventory.service.ReservationService.reserve",
    ),
    ("payments", "com.acme.payments.service.PaymentService.charge"),
    (
        "notifications",
        "com.acme.notifications.service.NotificationService.send",
    ),
];

/// Drops what differs between two runs over the same sources (ids, run numbers, times,
/// generations) so equal sources give equal answers.
pub fn stable(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "id" | "generation" | "seconds" | "timings" | "runs" | "last_run" | "last_run_status"
                    )
                })
                .map(|(k, v)| (k.clone(), stable(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(stable).collect()),
        other => other.clone(),
    }
}

/// What one served product answers: node counts per kind (from `status-snapshot`), its
/// endpoints, and the callers of one of its methods, each with volatile fields dropped.
/// Equal for two generations indexed from the same sources; different for "before" and
/// "after" of a product the two versions change.
pub type Fingerprint = BTreeMap<&'static str, BTreeMap<&'static str, String>>;

/// The fingerprint of every product of the fixture company the server at `base` serves.
pub fn fingerprint(http: &Http, base: &str) -> Fingerprint {
    fingerprint_of(http, base, &PRODUCTS)
}

/// The fingerprint of `products` as the server at `base` serves them.
pub fn fingerprint_of(http: &Http, base: &str, products: &[&str]) -> Fingerprint {
    let mut out = Fingerprint::new();
    for (product, method) in CALLEES.into_iter().filter(|(p, _)| products.contains(p)) {
        let mut answers = BTreeMap::new();
        let ask = |answers: &mut BTreeMap<&'static str, String>,
                   what: &'static str,
                   (status, body): (u16, String)| {
            assert_eq!(status, 200, "{product} {what}: {body}");
            let v: Value = serde_json::from_str(&body).expect("JSON answer");
            answers.insert(what, stable(&v["result"]).to_string());
        };
        ask(
            &mut answers,
            "endpoints",
            http.get(
                &format!("{base}/api/v1/code/endpoints"),
                &[("scope", product), ("limit", "500")],
            ),
        );
        ask(
            &mut answers,
            "callers",
            http.get(
                &format!("{base}/api/v1/code/callers"),
                &[("fqn", method), ("depth", "3"), ("scope", product)],
            ),
        );
        ask(
            &mut answers,
            "status",
            http.post(
                &format!("{base}/api/v1/recipes/status-snapshot"),
                &format!(r#"{{"scope": "{product}"}}"#),
            ),
        );
        out.insert(product, answers);
    }
    out
}

/// Which of `before`/`after` each product of `served` is (in name order): "before", "after"
/// (or "same" when the two versions agree), panicking with the difference when it is
/// neither.
pub fn whole_generations(
    served: &Fingerprint,
    before: &Fingerprint,
    after: &Fingerprint,
    when: &str,
) -> Vec<&'static str> {
    served
        .keys()
        .map(|p| {
            let s = &served[*p];
            let (b, a) = (&before[*p], &after[*p]);
            if s == b && s == a {
                "same"
            } else if s == b {
                "before"
            } else if s == a {
                "after"
            } else {
                let diff: Vec<_> = s
                    .iter()
                    .filter(|(k, v)| b.get(*k) != Some(v) && a.get(*k) != Some(v))
                    .map(|(k, v)| format!("{k}: {v}\n  before: {}\n  after: {}", b[k], a[k]))
                    .collect();
                panic!(
                    "{when}: product {p} answers neither generation:\n{}",
                    diff.join("\n")
                )
            }
        })
        .collect()
}
