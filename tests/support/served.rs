//! Shared by the process tests: the fixture company indexed into a temporary store with a
//! `semgraph.toml` of absolute paths beside it, and the real `semgraph serve` binary as a
//! child over it, its output drained (a full pipe would stall the server) and kept.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A temporary company: the fixture indexed into `dir/store`, with `dir/semgraph.toml`.
pub struct Company {
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
}

fn toml_path(p: &Path) -> String {
    p.display().to_string().replace('\\', "\\\\").replace('"', "\\\"")
}

/// Indexes the fixture company into a temporary store and writes a config that names it,
/// the fixture's products with absolute paths (so admin index jobs find them), and
/// `server_toml` (a `[server]` table, or nothing).
pub fn indexed_company(server_toml: &str) -> Company {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, company) = super::indexed_fixture(dir.path());
    drop(store);
    let mut text = format!("[store]\npath = \"{}\"\n\n", toml_path(&company.store));
    for p in &company.products {
        let list = |paths: &[PathBuf]| {
            paths
                .iter()
                .map(|p| format!("\"{}\"", toml_path(p)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "[[product]]\nname = \"{}\"\narea = \"{}\"\nrepos = [{}]\nwiki = [{}]\njira = [{}]\n\n",
            p.name,
            p.area,
            list(&p.repos),
            list(&p.wiki),
            list(&p.jira)
        ));
    }
    text.push_str(server_toml);
    let config = dir.path().join("semgraph.toml");
    std::fs::write(&config, text).expect("write config");
    Company { dir, config }
}

/// A running `semgraph serve`, killed when dropped.
pub struct Served {
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    drains: Vec<std::thread::JoinHandle<()>>,
}

fn drain(mut from: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => into.lock().expect("log buffer").extend_from_slice(&buf[..n]),
            }
        }
    })
}

impl Served {
    /// Starts `semgraph serve --config CONFIG --bind 127.0.0.1:0` with `env`, and waits for
    /// the banner that names its address.
    pub fn start(config: &Path, env: &[(&str, &str)]) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_semgraph"));
        command
            .args(["serve", "--config"])
            .arg(config)
            .args(["--bind", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("spawn semgraph serve");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let mut drains = vec![drain(child.stderr.take().expect("stderr"), stderr.clone())];
        let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
        let mut base = None;
        let started = Instant::now();
        while base.is_none() && started.elapsed() < Duration::from_secs(120) {
            let mut line = String::new();
            match lines.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            stdout
                .lock()
                .expect("log buffer")
                .extend_from_slice(line.as_bytes());
            if let Some(at) = line.find(" on http://") {
                base = Some(line[at + 4..].trim().to_string());
            }
        }
        drains.push(drain(lines, stdout.clone()));
        let Some(base) = base else {
            let _ = child.kill();
            let _ = child.wait();
            let err = String::from_utf8_lossy(&stderr.lock().expect("log buffer")).into_owned();
            panic!("semgraph serve did not start: {err}");
        };
        Served {
            child,
            base,
            stdout,
            stderr,
            drains,
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// The peak resident set of the server process so far (`VmHWM`), in bytes.
    pub fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    }

    /// Stops the server (SIGTERM, then SIGKILL after a grace period) and returns all it
    /// wrote: stdout and stderr.
    pub fn stop(mut self) -> (String, String) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        for d in std::mem::take(&mut self.drains) {
            let _ = d.join();
        }
        let text =
            |b: &Arc<Mutex<Vec<u8>>>| String::from_utf8_lossy(&b.lock().expect("log buffer")).into_owned();
        (text(&self.stdout), text(&self.stderr))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
