#!/usr/bin/env python3
"""The whole benchmark suite at a chosen scale, in one run, written as a markdown report.

Steps (each is also runnable alone; see the header of each bench):
1. `cargo bench --bench queries`: the synthetic company (50 products, 2M methods, 20M
   calls at `--scale full`) is generated into a store kept under WORK; primitives and
   recipes cold and warm; the graph kernels; the graph exported for the peers.
2. `benches/peers/peers.py`: SQLite (recursive CTE) and Kuzu (Cypher) load the same edges
   and answer the same questions for the same seeds; ratios peer / semgraph.
3. The server under load: `semgraph serve` on the same store, `wrk` (64 connections,
   2 threads) per endpoint over thousands of distinct targets, and a mixed workload; then
   the resident memory of the serving process per million edges; then each workload once
   more on the same server, its caches warm.
4. `cargo bench --bench indexer`: end-to-end indexing of the synthetic Java company at
   1M and 4M lines (`--scale full`), DDL and Jira.
5. `benches/incremental.py` (with `--incremental-tree PATH`, e.g. a spring-boot checkout):
   a full index of a copy of the tree, then re-index after 1 and after 100 changed files.

    python3 benches/suite.py --scale small            # minutes: 10 products, 200k methods
    python3 benches/suite.py --scale full --out bench-report.md

Needs: the Rust toolchain, python3 with venv (Kuzu is installed into
~/.cache/semgraph/peers-venv), and `wrk` (installed with apt when missing).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALES = {
    "small": {"products": 10, "methods": 200_000, "calls": 2_000_000, "samples": 100,
              "java_lines": "200000,400000", "ddl_mb": 5, "jira": 10_000, "seconds": 5},
    "full": {"products": 50, "methods": 2_000_000, "calls": 20_000_000, "samples": 200,
             "java_lines": "1000000,4000000", "ddl_mb": 20, "jira": 50_000, "seconds": 15},
}
KUZU = "kuzu==0.11.3"


def sh(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def cargo_bench(name, args, env):
    out = subprocess.run(["cargo", "bench", "--bench", name, "--", *map(str, args)], cwd=ROOT, env=env,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    print(out, flush=True)
    return out


def peers_python():
    venv = Path.home() / ".cache/semgraph/peers-venv"
    py = venv / "bin/python"
    ok = py.exists() and subprocess.run([py, "-c", "import kuzu"], capture_output=True).returncode == 0
    if not ok:
        sh([sys.executable, "-m", "venv", venv])
        sh([venv / "bin/pip", "install", "--quiet", "--disable-pip-version-check", KUZU])
    return py


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wrk(url, script, seconds):
    out = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", "--latency", "-s", script, url],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label):
        m = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", out)
        if not m:
            return None
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v

    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {"rps": rps, "p50_ms": ms("50%"), "p99_ms": ms("99%"), "non_2xx": int(non2xx.group(1)) if non2xx else 0}


def lua(requests, path):
    """A wrk script cycling through (method, path, body) requests."""
    def q(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    rows = ",\n".join("{" + ", ".join(q(x) for x in r) + "}" for r in requests)
    path.write_text(f"""local reqs = {{
{rows}
}}
local i = 0
request = function()
  i = i % #reqs + 1
  local r = reqs[i]
  local headers = {{}}
  if r[1] == "POST" then headers["Content-Type"] = "application/json" end
  return wrk.format(r[1], r[2], headers, r[3] ~= "" and r[3] or nil)
end
""")
    return str(path)


def server_load(work, store, fqns, seconds, edges, binary=None):
    if not shutil.which("wrk"):
        sh(["apt-get", "install", "-y", "-qq", "wrk"])
    if binary is None:
        binary = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release/semgraph"
    port = free_port()
    proc = subprocess.Popen([binary, "serve", "--store", store, "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        idle_rss = rss_mb(proc.pid)
        enc = urllib.request.quote
        callers = [("GET", f"/api/v1/code/callers?fqn={enc(f)}", "") for f in fqns]
        impact = [("POST", "/api/v1/recipes/impact", json.dumps({"target": f, "depth": 3})) for f in fqns]
        mixed = []
        for i, f in enumerate(fqns):
            mixed.append(callers[i] if i % 4 else impact[i])
            if i % 10 == 0:
                mixed.append(("GET", f"/api/v1/code/callees?fqn={enc(f)}", ""))
            if i % 50 == 0:
                mixed.append(("POST", "/api/v1/recipes/status-snapshot", "{}"))
        rows = {}
        workloads = (("callers", callers), ("impact (depth 3)", impact), ("mixed", mixed))
        for name, reqs in workloads:
            rows[name] = wrk(base, lua(reqs, work / f"{name.split()[0]}.lua"), seconds)
            print(name, rows[name], flush=True)
        served_rss = rss_mb(proc.pid)
        # Each workload once more, at once: the first runs include a fresh process's and a
        # cold page cache's first seconds; these are the same load once both are warm.
        again = {}
        for name, _ in workloads:
            again[name] = wrk(base, str(work / f"{name.split()[0]}.lua"), seconds)
            print(name, "again", again[name], flush=True)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    return {"endpoints": rows, "again": again, "idle_rss_mb": idle_rss, "rss_mb": served_rss,
            "rss_mb_per_million_edges": served_rss / (edges / 1e6)}


def figure(figs, name):
    return next((f for f in figs if f["name"] == name), None)


def report(scale, q, peers, http, indexer_out, spec, incremental_out=None):
    figs = q["figures"]
    md = [f"# semgraph benchmark report ({scale})", "",
          f"Machine: {os.cpu_count()} cores. Company: {q['spec']}: {q['nodes']:,} nodes, {q['edges']:,} edges; "
          f"{q['disk_bytes'] / 1e6:.0f} MB on disk; opened in {q['open_secs']:.1f} s; peak RSS of the query bench {q['peak_rss_mb']:.0f} MB.",
          "", "## Primitives and recipes (in process, markdown and JSON rendered)", "",
          "| query | cold median | cold p99 | cold max | warm median | warm p99 | warm max |", "|---|---|---|---|---|---|---|"]
    names = sorted({f["name"].rsplit(", ", 1)[0] for f in figs if f["name"].endswith(("cold", "warm"))},
                   key=lambda n: [f["name"] for f in figs].index(n + ", cold") if figure(figs, n + ", cold") else 99)
    for n in names:
        c, w = figure(figs, n + ", cold"), figure(figs, n + ", warm")
        cells = []
        for f in (c, w):
            cells += [f"{f['median_ms']:.2f} ms", f"{f['p99_ms']:.2f} ms", f"{f['max_ms']:.2f} ms"] if f else ["—"] * 3
        md.append(f"| {n} | " + " | ".join(cells) + " |")
    md += ["", "## semgraph and its peers, same graph, same seeds", ""]
    if peers:
        g = peers["graph"]
        md.append(f"{g['nodes']:,} nodes, {g['call_edges']:,} call edges, {g['seeds']} seed methods. Medians; "
                  "ratio = peer median / semgraph median. `wrong` counts answers that differ from semgraph's.")
        md += ["", "| query | semgraph | " + " | ".join(f"{p} | ratio" for p in ("sqlite", "kuzu") if peers.get(p)) + " |",
               "|---|---|" + "---|---|" * sum(1 for p in ("sqlite", "kuzu") if peers.get(p))]
        kernel = {"callers": "kernel: callers (depth 1)", "reach3": "kernel: reverse reachability, depth 3",
                  "reach6": "kernel: reverse reachability, depth 6", "endpoints3": "kernel: endpoints reached, depth 3"}
        for key, kname in kernel.items():
            s = figure(figs, kname)
            if not s:
                continue
            row = [key, f"{s['median_ms']:.3f} ms"]
            for p in ("sqlite", "kuzu"):
                if not peers.get(p):
                    continue
                f = peers[p]["queries"].get(key, {})
                if f.get("median_ms") is None:
                    row += ["no answer in budget", "—"]
                    continue
                partial = "" if f["answered"] == f["of"] else f" ({f['answered']}/{f['of']} seeds)"
                row += [f"{f['median_ms']:.3f} ms{partial}, {f['wrong']} wrong",
                        f"{f['median_ms'] / max(s['median_ms'], 1e-6):.0f}×"]
            md.append("| " + " | ".join(row) + " |")
        md += ["", "| store | load | size |", "|---|---|---|",
               f"| semgraph (whole company: nodes, names, both adjacency directions, sets) | "
               f"{'%.1f s' % q['load_secs'] if q['load_secs'] else 'reused'} | {q['disk_bytes'] / 1e6:.0f} MB |"]
        for p in ("sqlite", "kuzu"):
            if peers.get(p):
                md.append(f"| {p} {peers[p]['version']} (call and serves edges only) | {peers[p]['load_secs']:.1f} s | "
                          f"{peers[p]['bytes'] / 1e6:.0f} MB |")
    if http:
        md += ["", "## Server under load (wrk, 64 connections, loopback, client on the same cores)", "",
               "| workload | req/s | p50 | p99 | non-2xx |", "|---|---|---|---|---|"]
        for name, r in http["endpoints"].items():
            md.append(f"| {name} | {r['rps']:,.0f} | {r['p50_ms']:.2f} ms | {r['p99_ms']:.2f} ms | {r['non_2xx']} |")
        md += ["", f"Resident memory of the serving process: {http['idle_rss_mb']:.0f} MB idle, {http['rss_mb']:.0f} MB after the load "
               f"= **{http['rss_mb_per_million_edges']:.1f} MB per million edges**."]
        if http.get("again"):
            md += ["", "The same workloads once more, at once, on the same server: its caches and the page cache are "
                   "warm (the runs above begin on a fresh process, its block and document caches empty and its "
                   "store's files perhaps not yet in the page cache).", "",
                   "| workload | req/s | p50 | p99 | non-2xx |", "|---|---|---|---|---|"]
            for name, r in http["again"].items():
                md.append(f"| {name} | {r['rps']:,.0f} | {r['p50_ms']:.2f} ms | {r['p99_ms']:.2f} ms | {r['non_2xx']} |")
    if indexer_out:
        md += ["", "## Indexing", "", "```text", indexer_out.strip(), "```"]
    if incremental_out:
        md += ["", "## Incremental re-index", "", incremental_out.strip()]
    return "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", choices=SCALES, default="small")
    ap.add_argument("--work", type=Path, default=Path.home() / ".cache/semgraph/bench")
    ap.add_argument("--out", type=Path, default=ROOT / "target/bench-report.md")
    ap.add_argument("--skip", default="", help="comma list of: peers,http,indexer")
    ap.add_argument("--binary", type=Path, default=None,
                    help="the semgraph binary the server step runs (default: build this tree's); "
                         "another build's, to compare before and after on the same store")
    ap.add_argument("--incremental-tree", type=Path, help="a real repository for the incremental step")
    args = ap.parse_args()
    spec = SCALES[args.scale]
    skip = set(filter(None, args.skip.split(",")))
    work = args.work / args.scale
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)

    qjson = work / "queries.json"
    cargo_bench("queries", ["--products", spec["products"], "--methods", spec["methods"], "--calls", spec["calls"],
                            "--samples", spec["samples"], "--store", work / "graph", "--export", work / "export",
                            "--json", qjson], env)
    q = json.loads(qjson.read_text())

    peers = None
    if "peers" not in skip:
        pjson = work / "peers.json"
        sh([peers_python(), ROOT / "benches/peers/peers.py", "--graph", work / "export", "--json", pjson])
        peers = json.loads(pjson.read_text())

    http = None
    if "http" not in skip:
        # Built with the benches' features (as `cargo bench` builds it), so the dependencies
        # already built for them are reused rather than built again with other features.
        if args.binary is None:
            sh(["cargo", "bench", "--bench", "queries", "--no-run"], cwd=ROOT, env=env)
        fqns = (work / "export/fqns.txt").read_text().split("\n")
        http = server_load(work, work / "graph/store", fqns, spec["seconds"], q["edges"], binary=args.binary)

    indexer_out = None
    if "indexer" not in skip:
        indexer_out = cargo_bench("indexer", ["--java-lines", spec["java_lines"], "--ddl-mb", spec["ddl_mb"],
                                              "--jira-issues", spec["jira"]], env)

    incremental_out = None
    if args.incremental_tree:
        sh(["cargo", "build", "--release", "--bin", "semgraph"], cwd=ROOT, env=env)
        incremental_out = subprocess.run(
            [sys.executable, ROOT / "benches/incremental.py", "--bin", Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release/semgraph",
             "--tree", args.incremental_tree, "--work", work / "incremental"],
            check=True, stdout=subprocess.PIPE, text=True).stdout
        print(incremental_out, flush=True)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(args.scale, q, peers, http, indexer_out, spec, incremental_out))
    print(f"report written to {args.out}")


if __name__ == "__main__":
    main()
