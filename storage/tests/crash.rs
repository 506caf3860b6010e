//! Crash consistency: a writer process is SIGKILLed at random points, mostly inside a
//! commit, and the reopened store must serve one committed generation, whole.
//!
//! The test re-executes its own binary as the writer (the child sees
//! `SEMGRAPH_CRASH_CHILD`): the child re-indexes product `alpha` again and again, each
//! generation with its own node count and names, and prints every commit. The parent kills
//! it after a random delay, reopens the store, and checks that `alpha` is exactly one
//! generation, no older than the last one the child reported committed, with every node
//! and edge of it; that the cross-product link from `beta` still resolves; and that a new
//! index run succeeds.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use semgraph_storage::{Direction, EdgeKind, LinkPolicy, NewNode, NodeKind, Store};

const CHILD_ENV: &str = "SEMGRAPH_CRASH_CHILD";
const KILLS: u32 = 12;

fn node_count(generation: u64) -> usize {
    3_000 + (generation as usize * 7_919) % 4_000
}

fn write_generation(store: &Store, generation: u64) {
    let mut w = store.begin("alpha", "north").expect("begin");
    let n = node_count(generation);
    let mut ids = Vec::with_capacity(n);
    for i in 0..n {
        let id = w
            .add_node(
                NewNode::new(NodeKind::Method, format!("m{i}")).fqn(format!("alpha.g{generation}.m{i}")),
            )
            .expect("node");
        ids.push(id);
    }
    for pair in ids.windows(2) {
        w.add_edge(pair[0], EdgeKind::Calls, pair[1]).expect("edge");
    }
    w.add_anchor(ids[0], "entry").expect("anchor");
    w.commit().expect("commit");
}

fn run_child(dir: &str) -> ! {
    let store = Store::open(dir).expect("child open");
    let start = store.snapshot().product("alpha").map(|p| p.run).unwrap_or(0);
    let mut generation = start + 1_000;
    loop {
        write_generation(&store, generation);
        println!("committed {generation}");
        let _ = std::io::stdout().flush();
        generation += 1;
    }
}

/// Checks the served `alpha` is one whole generation and returns it.
fn served_generation(store: &Store) -> Option<u64> {
    let snap = store.snapshot();
    let alpha = snap.product("alpha")?;
    let entry = snap.find_by_name("m0").expect("lookup");
    let entry: Vec<_> = entry
        .into_iter()
        .filter(|id| snap.product_of(*id).map(|p| p.name) == Some("alpha".into()))
        .collect();
    assert_eq!(entry.len(), 1, "exactly one generation's m0 is served");
    let first = snap.node(entry[0]).expect("read").expect("m0 live");
    let fqn = first.fqn.expect("fqn");
    let generation: u64 = fqn
        .strip_prefix("alpha.g")
        .and_then(|s| s.split('.').next())
        .and_then(|g| g.parse().ok())
        .expect("generation in fqn");
    let n = node_count(generation);
    assert_eq!(alpha.node_count as usize, n, "generation {generation} is whole");
    // Walk the chain: every node of this generation, every edge, nothing else.
    let adj = snap.adjacency();
    let mut at = entry[0];
    let mut walked = 1;
    while let Some(next) = adj.neighbors(at, Direction::Out, EdgeKind::Calls).next() {
        at = next;
        walked += 1;
        assert!(walked <= n, "the chain does not loop");
    }
    assert_eq!(walked, n, "every edge of generation {generation} is served");
    let last = snap.node(at).expect("read").expect("live");
    assert_eq!(
        last.fqn.as_deref(),
        Some(format!("alpha.g{generation}.m{}", n - 1).as_str())
    );
    // beta's reference to alpha's entry resolves to this generation's m0.
    let beta_caller = snap.find_by_fqn("beta.caller").expect("lookup");
    assert_eq!(beta_caller.len(), 1);
    let linked: Vec<_> = adj
        .neighbors(beta_caller[0], Direction::Out, EdgeKind::Invokes)
        .collect();
    assert_eq!(linked, entry, "the cross-product link follows the re-index");
    Some(generation)
}

#[test]
fn sigkill_during_commits_leaves_one_whole_generation() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        run_child(&dir);
    }
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = Store::open(dir.path()).expect("open");
        let mut w = store.begin("beta", "south").expect("begin");
        let caller = w
            .add_node(NewNode::new(NodeKind::HttpCall, "caller").fqn("beta.caller"))
            .expect("node");
        w.add_link(caller, EdgeKind::Invokes, "entry", LinkPolicy::Unique)
            .expect("link");
        w.commit().expect("commit");
        write_generation(&store, 1);
    }
    let exe = std::env::current_exe().expect("test binary");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut survived = 0;
    for kill in 0..KILLS {
        let mut child = Command::new(&exe)
            .args([
                "sigkill_during_commits_leaves_one_whole_generation",
                "--exact",
                "--nocapture",
            ])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn writer");
        let last_committed = Arc::new(Mutex::new(None::<u64>));
        let stdout = child.stdout.take().expect("stdout");
        let seen = last_committed.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(g) = line.strip_prefix("committed ").and_then(|g| g.parse().ok()) {
                    *seen.lock().expect("lock") = Some(g);
                }
            }
        });
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = 150 + seed % 900;
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");
        reader.join().expect("reader");

        let store = Store::open(dir.path()).expect("reopen after kill");
        let generation = served_generation(&store).expect("alpha served");
        if let Some(reported) = *last_committed.lock().expect("lock") {
            assert!(
                generation >= reported,
                "kill {kill}: served generation {generation} is older than committed {reported}"
            );
        }
        // A re-index after the crash succeeds and is served whole.
        write_generation(&store, 500 + u64::from(kill));
        assert_eq!(served_generation(&store), Some(500 + u64::from(kill)));
        survived += 1;
    }
    assert_eq!(survived, KILLS);
}
