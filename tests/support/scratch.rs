//! Scratch folders for what a test binary keeps in a `static` for its whole life (an
//! indexed company): a static is never dropped, so a `TempDir` in one is never removed,
//! and every run of the suite (one process per test) would leave a store behind. Each
//! process gets `<tmp>/semgraph-tests/<label>-<pid>`, and the folders of processes that
//! are gone are removed when the next one starts.

#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

/// A fresh folder for this process, after removing those of dead processes.
pub fn process_dir(label: &str) -> PathBuf {
    let root = std::env::temp_dir().join("semgraph-tests");
    if let Ok(entries) = std::fs::read_dir(&root) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let pid = name.rsplit('-').next().and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid {
                if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
    }
    let dir = root.join(format!("{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}
