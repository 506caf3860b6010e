#!/usr/bin/env python3
"""The peers on semgraph's graph: SQLite (recursive CTE) and Kuzu (Cypher), same queries.

`cargo bench --bench queries -- --export DIR` writes the call graph of the synthetic
company (calls.csv: caller,callee; serves.csv: endpoint,handler; nodes.csv: id,is_endpoint),
the sampled seed methods and semgraph's answers and latencies (semgraph.json). This script
loads the same edges into each peer, asks the same questions for the same seeds, checks
every answer against semgraph's, and prints per query the latency and the ratio
peer / semgraph:

- callers: the distinct direct callers of the seed;
- reach3 / reach6: the distinct methods that reach the seed within 3 / 6 calls
  (reverse reachability), the seed excluded;
- endpoints3: the distinct endpoints whose handler is the seed or reaches it within 3 calls.

Run (a venv with kuzu; sqlite3 is in the standard library):

    python3 -m venv ~/.cache/semgraph/peers-venv
    ~/.cache/semgraph/peers-venv/bin/pip install kuzu==0.11.3
    ~/.cache/semgraph/peers-venv/bin/python benches/peers/peers.py --graph DIR [--json OUT]

A peer gets at most --budget seconds per query: the seeds it did not reach in time are
reported, never guessed.
"""

import argparse
import csv
import json
import os
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

QUERIES = ["callers", "reach3", "reach6", "endpoints3"]


def dir_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def summary(times):
    if not times:
        return None
    s = sorted(times)
    p99 = s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]
    return {"median_ms": statistics.median(s) * 1e3, "p99_ms": p99 * 1e3, "max_ms": s[-1] * 1e3, "samples": len(s)}


def run_queries(name, ask, seeds, expected, budget):
    """Times ask(query, seed) -> count for every query and seed, within budget seconds each."""
    out = {}
    for q in QUERIES:
        times, wrong, done = [], 0, 0
        started = time.perf_counter()
        for i, seed in enumerate(seeds):
            if time.perf_counter() - started > budget:
                break
            t0 = time.perf_counter()
            got = ask(q, seed)
            times.append(time.perf_counter() - t0)
            done += 1
            if expected.get(q) is not None and got != expected[q][i]:
                wrong += 1
        fig = summary(times) or {}
        fig.update({"answered": done, "of": len(seeds), "wrong": wrong})
        out[q] = fig
        print(f"{name} {q}: " + (f"median {fig['median_ms']:.3f} ms, p99 {fig['p99_ms']:.3f} ms, " if times else "")
              + f"{done}/{len(seeds)} seeds answered, {wrong} answers differ from semgraph", flush=True)
    return out


def sqlite_peer(graph: Path, work: Path, seeds, expected, budget):
    db_path = work / "peer.sqlite"
    if db_path.exists():
        db_path.unlink()
    con = sqlite3.connect(db_path)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA cache_size=-1000000")  # 1 GB page cache, as a tuned deployment would
    t0 = time.perf_counter()
    con.execute("CREATE TABLE calls(src INTEGER NOT NULL, dst INTEGER NOT NULL)")
    con.execute("CREATE TABLE serves(endpoint INTEGER NOT NULL, handler INTEGER NOT NULL)")
    for table, file in (("calls", "calls.csv"), ("serves", "serves.csv")):
        with open(graph / file, newline="") as f:
            con.executemany(f"INSERT INTO {table} VALUES (?, ?)", ((int(a), int(b)) for a, b in csv.reader(f)))
    con.execute("CREATE INDEX calls_by_callee ON calls(dst, src)")
    con.execute("CREATE INDEX serves_by_handler ON serves(handler, endpoint)")
    con.commit()
    load_secs = time.perf_counter() - t0
    size = dir_bytes(db_path)
    print(f"sqlite {sqlite3.sqlite_version}: loaded in {load_secs:.1f} s, {size / 1e6:.1f} MB", flush=True)

    reach = """WITH RECURSIVE r(n, d) AS (
                 SELECT ?1, 0
                 UNION
                 SELECT c.src, r.d + 1 FROM calls c JOIN r ON c.dst = r.n WHERE r.d < ?2)"""
    sql = {
        "callers": ("SELECT count(DISTINCT src) FROM calls WHERE dst = ?1 AND src != ?1", lambda s: (s,)),
        "reach3": (reach + " SELECT count(DISTINCT n) FROM r WHERE n != ?1", lambda s: (s, 3)),
        "reach6": (reach + " SELECT count(DISTINCT n) FROM r WHERE n != ?1", lambda s: (s, 6)),
        "endpoints3": (reach + " SELECT count(DISTINCT s.endpoint) FROM serves s WHERE s.handler IN (SELECT n FROM r)",
                       lambda s: (s, 3)),
    }

    def ask(q, seed):
        text, params = sql[q]
        return con.execute(text, params(seed)).fetchone()[0]

    figures = run_queries("sqlite", ask, seeds, expected, budget)
    con.close()
    return {"version": sqlite3.sqlite_version, "load_secs": load_secs, "bytes": size, "queries": figures}


def kuzu_peer(graph: Path, work: Path, seeds, expected, budget):
    try:
        import kuzu
    except ImportError:
        print("kuzu is not installed: skipped (pip install kuzu==0.11.3)", flush=True)
        return None
    db_path = work / "peer.kuzu"
    if db_path.exists():
        shutil.rmtree(db_path) if db_path.is_dir() else db_path.unlink()
    db = kuzu.Database(str(db_path))
    con = kuzu.Connection(db)
    t0 = time.perf_counter()
    con.execute("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))")
    con.execute("CREATE REL TABLE Calls(FROM N TO N)")
    con.execute("CREATE REL TABLE Serves(FROM N TO N)")
    # Every id on an edge, once: Kuzu wants each endpoint of a relationship as a node.
    ids = set()
    for file in ("calls.csv", "serves.csv"):
        with open(graph / file, newline="") as f:
            for a, b in csv.reader(f):
                ids.add(int(a))
                ids.add(int(b))
    node_file = work / "kuzu-nodes.csv"
    with open(node_file, "w") as f:
        f.writelines(f"{i}\n" for i in sorted(ids))
    del ids
    con.execute(f"COPY N FROM '{node_file}' (header=false)")
    con.execute(f"COPY Calls FROM '{graph / 'calls.csv'}' (header=false)")
    con.execute(f"COPY Serves FROM '{graph / 'serves.csv'}' (header=false)")
    load_secs = time.perf_counter() - t0
    del con
    del db
    size = dir_bytes(db_path)
    db = kuzu.Database(str(db_path))
    con = kuzu.Connection(db)
    print(f"kuzu {kuzu.__version__}: loaded in {load_secs:.1f} s, {size / 1e6:.1f} MB", flush=True)

    def count(query, seed):
        res = con.execute(query, {"id": seed})
        return res.get_next()[0] if res.has_next() else 0

    # Shortest-path semantics: each reaching method once, as a distinct-reachability query
    # should be written for Kuzu (walk semantics enumerate every path and explode on hubs).
    reach = "MATCH (a:N)-[:Calls* SHORTEST 1..{d}]->(b:N {{id: $id}}) WHERE a.id <> $id RETURN count(DISTINCT a.id)"

    def ask(q, seed):
        if q == "callers":
            return count("MATCH (a:N)-[:Calls]->(b:N {id: $id}) WHERE a.id <> $id RETURN count(DISTINCT a.id)", seed)
        if q == "reach3":
            return count(reach.format(d=3), seed)
        if q == "reach6":
            return count(reach.format(d=6), seed)
        reached = con.execute(
            "MATCH (e:N)-[:Serves]->(h:N)-[:Calls* SHORTEST 1..3]->(b:N {id: $id}) RETURN collect(DISTINCT e.id)",
            {"id": seed}).get_next()[0]
        direct = con.execute("MATCH (e:N)-[:Serves]->(b:N {id: $id}) RETURN collect(DISTINCT e.id)",
                             {"id": seed}).get_next()[0]
        return len(set(reached or []) | set(direct or []))

    figures = run_queries("kuzu", ask, seeds, expected, budget)
    return {"version": kuzu.__version__, "load_secs": load_secs, "bytes": size, "queries": figures}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", required=True, type=Path, help="the folder written by `--export`")
    ap.add_argument("--work", type=Path, help="where the peers' stores go (default: GRAPH/peers)")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per peer and query")
    ap.add_argument("--peers", default="sqlite,kuzu")
    ap.add_argument("--json", type=Path, help="write every figure here")
    args = ap.parse_args()
    info = json.loads((args.graph / "semgraph.json").read_text())
    seeds = info["seeds"]
    expected = {q: info.get(q) for q in QUERIES}
    work = args.work or args.graph / "peers"
    work.mkdir(parents=True, exist_ok=True)
    print(f"graph: {info['nodes']} nodes, {info['call_edges']} call edges, {len(seeds)} seeds", flush=True)
    result = {"graph": {"nodes": info["nodes"], "call_edges": info["call_edges"], "seeds": len(seeds)}}
    for peer in args.peers.split(","):
        fn = {"sqlite": sqlite_peer, "kuzu": kuzu_peer}.get(peer)
        if fn is None:
            sys.exit(f"unknown peer {peer!r}: sqlite or kuzu")
        result[peer] = fn(args.graph, work, seeds, expected, args.budget)
    sem = {f["key"]: f for f in info.get("figures", [])}
    for q in QUERIES:
        s = sem.get(q)
        for peer in args.peers.split(","):
            p = (result.get(peer) or {}).get("queries", {}).get(q)
            if s and p and p.get("median_ms"):
                print(f"ratio {peer}/semgraph {q}: {p['median_ms'] / s['median_ms']:.1f}x (median)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
