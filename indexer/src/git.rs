//! What a repository's git state is: the commit checked out and whether the tree is dirty.
//!
//! An index run records, on each Repo node, the commit its sources came from, so an answer
//! can say which commit it describes and whether the repository has moved on since. The
//! `git` command line is asked (every machine that has a repository has it; no library of
//! git is linked): `git rev-parse HEAD` and `git status --porcelain`. A folder that is not
//! in a repository, a `git` that is missing or fails, or one that does not answer in time is
//! "no state" — never an error of the run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a `git` command may take before its answer is given up on.
const GIT_TIMEOUT: Duration = Duration::from_secs(20);

/// A repository's checked-out commit and whether its working tree differs from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitState {
    /// The full hash of `HEAD`.
    pub commit: String,
    /// True when tracked files differ from `HEAD` or untracked files exist (outside
    /// `.gitignore`).
    pub dirty: bool,
}

/// The git state of the repository holding `root` (which may be a folder inside it), or
/// `None` when `root` is not in a git repository or `git` cannot tell.
pub fn state(root: &Path) -> Option<GitState> {
    let commit = run(root, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])?;
    let commit = commit.trim().to_string();
    if commit.len() < 7 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // Only the part of the tree under `root` counts: a product that is one folder of a
    // larger repository is dirty when that folder is.
    let status = run(
        root,
        &["status", "--porcelain", "--untracked-files=normal", "--", "."],
    )?;
    Some(GitState {
        commit,
        dirty: !status.trim().is_empty(),
    })
}

/// Runs `git -C root args…` and returns its standard output, or `None` when it fails,
/// is missing, or runs past [`GIT_TIMEOUT`]. Nothing of the user's configuration that
/// would run programs (pagers, external diff or text conversion drivers) is used.
pub fn run(root: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.pager=cat", "-c", "core.fsmonitor=false"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    // Read on a thread so a large output never fills the pipe while we wait.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut out).map(|_| out)
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < GIT_TIMEOUT => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let out = reader.join().ok()?.ok()?;
    if !status.success() {
        return None;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("git runs");
        assert!(ok.success(), "git {args:?}");
    }

    #[test]
    fn a_repository_has_a_commit_and_turns_dirty_when_a_file_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(state(dir.path()), None, "not a repository yet");
        git(dir.path(), &["init", "-q"]);
        assert_eq!(state(dir.path()), None, "no commit yet");
        std::fs::write(dir.path().join("a.txt"), "one\n").expect("write");
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-q", "-m", "first"]);
        let clean = state(dir.path()).expect("a state");
        assert_eq!(clean.commit.len(), 40);
        assert!(!clean.dirty);
        std::fs::write(dir.path().join("a.txt"), "two\n").expect("write");
        let dirty = state(dir.path()).expect("a state");
        assert_eq!(dirty.commit, clean.commit);
        assert!(dirty.dirty);
    }
}
