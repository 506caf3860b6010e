#!/usr/bin/env python3
"""Two semgraph binaries indexing the same real tree, in alternation, and whether they agree.

On a shared 2-core machine the same index run varies by 20% from one minute to the next,
more than most single changes to the indexer gain. Runs of binary A and binary B taken
one after the other, round after round, meet the same noise; their medians and minimums
tell a change from the hour where two single runs cannot.

Copies TREE (never modified) into WORK, then for each scenario and round runs A, then B:
- `full`: a full index into a fresh store;
- `one-file`: a comment appended to one Java file, then a re-index (facts and resolved calls
  of every other file reused);
- `declaration`: a private method added to one Java file, then a re-index (a declaration
  changed: every file resolves again).
Each binary has its own store (the facts cache is keyed by the binary). Wall and user
seconds and peak RSS come from `wait4`. After the rounds, both stores are re-indexed on the
same tree and compared: `semgraph status` (nodes, edges) and the status snapshot without
its timings and run records must be equal, else the script says so and exits 1 — a faster
binary that writes another graph is no improvement.

    python3 benches/ab_index.py --a /tmp/before/semgraph --b target/release/semgraph \\
        --tree /tmp/repos/spring-boot --rounds 5
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import scratch

SCENARIOS = ("full", "one-file", "declaration")
# Keys of the status snapshot that differ between two runs of the same graph.
VOLATILE = {"timings", "last_run", "runs", "generation", "indexed_at", "duration_ms", "seconds",
            "started", "finished"}


def run_index(binary, store, tree):
    """One `semgraph index`: (wall s, user s, peak RSS MB) of the child alone."""
    started = time.monotonic()
    child = subprocess.Popen([str(binary), "index", "--store", str(store), str(tree)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{binary} index {tree} failed with status {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime, usage.ru_maxrss / 1024


def edit(path, scenario, n):
    text = Path(path).read_text(encoding="utf-8")
    if scenario == "one-file":
        text += f"\n// semgraph ab {n}\n"
    else:
        at = text.rfind("}")
        text = text[:at] + f"\tprivate void semgraphAbProbe{n}() {{\n\t}}\n\n" + text[at:]
    Path(path).write_text(text, encoding="utf-8")


def without_volatile(value):
    if isinstance(value, dict):
        return {k: without_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [without_volatile(v) for v in value]
    return value


def graph_of(binary, store):
    status = subprocess.run([str(binary), "status", "--store", str(store)], check=True,
                            stdout=subprocess.PIPE, text=True).stdout
    line = next((l for l in status.splitlines() if "nodes" in l), "")
    snapshot = subprocess.run([str(binary), "query", "--store", str(store), "--json",
                               "recipes/status-snapshot"], check=True, stdout=subprocess.PIPE,
                              text=True).stdout
    result = json.loads(snapshot)["result"]
    return line.split("·", 2)[-1].strip(), json.dumps(without_volatile(result), sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the binary before")
    ap.add_argument("--b", required=True, help="the binary after")
    ap.add_argument("--tree", required=True, help="a repository to copy (never modified)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated: " + ", ".join(SCENARIOS))
    ap.add_argument("--work", default="/tmp/semgraph-bench-ab",
                    help=scratch.HELP)
    args = ap.parse_args()
    scenarios = [s for s in args.scenarios.split(",") if s]
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        sys.exit(f"unknown scenario(s) {unknown}; choose from {', '.join(SCENARIOS)}")
    binaries = {"A": Path(args.a).resolve(), "B": Path(args.b).resolve()}
    work = scratch.fresh(args.work, ".semgraph-bench-ab")
    tree = work / Path(args.tree).name
    shutil.copytree(args.tree, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    java = sorted(str(p) for p in tree.rglob("*.java") if "/src/main/" in str(p))
    if not java:
        sys.exit(f"{args.tree} has no Java file under a src/main folder to edit")
    stores = {k: work / f"store-{k}" for k in binaries}
    figures = {}
    edits = 0
    for scenario in scenarios:
        if scenario != "full":
            for k, b in binaries.items():
                if not stores[k].exists():
                    run_index(b, stores[k], tree)
        for _ in range(args.rounds):
            for k, b in binaries.items():
                if scenario == "full":
                    shutil.rmtree(stores[k], ignore_errors=True)
                else:
                    edits += 1
                    edit(java[0], scenario, edits)
                figures.setdefault((scenario, k), []).append(run_index(b, stores[k], tree))
    for k, b in binaries.items():
        run_index(b, stores[k], tree)
    graphs = {k: graph_of(b, stores[k]) for k, b in binaries.items()}

    print(f"tree: {args.tree} ({len(java)} main Java files), {args.rounds} round(s), A then B each round")
    print(f"A: {binaries['A']}\nB: {binaries['B']}\n")
    print("| scenario | binary | wall median | wall min | user median | user min | peak RSS max |")
    print("|---|---|---|---|---|---|---|")
    for scenario in scenarios:
        for k in binaries:
            runs = figures[(scenario, k)]
            wall = [r[0] for r in runs]
            user = [r[1] for r in runs]
            print(f"| {scenario} | {k} | {statistics.median(wall):.2f} s | {min(wall):.2f} s | "
                  f"{statistics.median(user):.2f} s | {min(user):.2f} s | {max(r[2] for r in runs):.0f} MB |")
    same = graphs["A"] == graphs["B"]
    print(f"\ngraph A: {graphs['A'][0]}; graph B: {graphs['B'][0]}; "
          + ("the same graph (status and status snapshot equal)" if same else "THE GRAPHS DIFFER"))
    shutil.rmtree(work)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
