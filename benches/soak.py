#!/usr/bin/env python3
"""A soak of `semgraph serve`: sustained load while every product is re-indexed every minute.

What it does:
1. Writes a synthetic Spring company (`cargo bench --bench indexer -- --write-corpus`,
   default 200,000 lines in 5 products), indexes it with `semgraph index` and serves it
   with `semgraph serve --config` (so the admin index route can re-index it).
2. For `--minutes` minutes, one minute at a time: two `wrk` clients at once, on the same
   cores as the server — `code/callers` (48 connections) and `recipes/impact` at depth 3
   (16 connections) over every method the company planted — while, at the start of each
   minute, a re-index of every product (`POST /api/v1/admin/index`) runs to its end.
3. Around each re-index, a fixed sample of questions (callers, impact, table-analysis,
   endpoint-trace) is asked before it starts and again after it ends: the sources did not
   change, so every answer must be byte for byte the same (elapsed times aside).
4. The server's resident memory is read every 5 s.

Printed (and written to `--out` as markdown): per minute, the requests per second and p50/p99
of each workload, the 5xx count (must be 0), the re-index's duration, the RSS at the end of
the minute (the curve must be flat after warm-up) beside what the server's `/metrics` says
holds it (the document and block caches, filling to their budgets, RocksDB's memtables and
table readers, and the heap the allocator counts: allocated, and resident; each minute's
JSON line also has the memtables per column family), and how many answers were compared and
how many differed (must be 0). The script exits non-zero if any 5xx was answered or any
answer differed. It is a benchmark, not a test: nothing here asserts a time.

    python3 benches/soak.py                       # 10 minutes
    python3 benches/soak.py --minutes 2 --lines 50000 --products 3

Needs: the Rust toolchain and `wrk` (installed with apt when missing).
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
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sh(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


WRK_SCRIPT = """
local reqs = {{
{rows}
}}
-- A global (not a local): `done` reads it from each thread with `thread:get`.
counts = {{s2 = 0, s4 = 0, s5 = 0}}
local i = 0
local threads = {{}}
setup = function(thread)
  table.insert(threads, thread)
  thread:set("offset", #threads * 7919)
end
init = function(args)
  i = (offset or 0) % #reqs
  counts = {{s2 = 0, s4 = 0, s5 = 0}}
end
request = function()
  i = i % #reqs + 1
  local r = reqs[i]
  local headers = {{}}
  if r[1] == "POST" then headers["Content-Type"] = "application/json" end
  return wrk.format(r[1], r[2], headers, r[3] ~= "" and r[3] or nil)
end
response = function(status, headers, body)
  if status >= 500 then counts.s5 = counts.s5 + 1
  elseif status >= 400 then counts.s4 = counts.s4 + 1
  else counts.s2 = counts.s2 + 1 end
end
done = function(summary, latency, requests)
  local s2, s4, s5 = 0, 0, 0
  for _, t in ipairs(threads) do
    local c = t:get("counts")
    s2 = s2 + c.s2; s4 = s4 + c.s4; s5 = s5 + c.s5
  end
  io.write(string.format("STATUS 2xx=%d 4xx=%d 5xx=%d\\n", s2, s4, s5))
end
"""


def lua(requests, path):
    def q(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    rows = ",\n".join("{" + ", ".join(q(x) for x in r) + "}" for r in requests)
    path.write_text(WRK_SCRIPT.format(rows=rows))
    return str(path)


def ms(out, label):
    m = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", out)
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v


def parse_wrk(out):
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    status = re.search(r"STATUS 2xx=(\d+) 4xx=(\d+) 5xx=(\d+)", out)
    return {
        "rps": float(rps.group(1)) if rps else 0.0,
        "p50_ms": ms(out, "50%"),
        "p99_ms": ms(out, "99%"),
        "2xx": int(status.group(1)) if status else 0,
        "4xx": int(status.group(2)) if status else 0,
        "5xx": int(status.group(3)) if status else 0,
    }


MEMORY_GAUGES = ("document_cache", "block_cache", "memtable", "table_reader", "heap_allocated", "heap_resident")


def memory_mb(base):
    """What the server's two bounded caches, RocksDB's memtables and table readers, and its
    heap hold now, in MB, from `/metrics`."""
    status, text = get(base, "/metrics")
    held, memtables = {}, {}
    for line in text.splitlines() if status == 200 else []:
        for name in MEMORY_GAUGES:
            # A gauge with labels (the memtables, per column family) is summed.
            if line.startswith((f"semgraph_{name}_bytes ", f"semgraph_{name}_bytes{{")):
                mb = float(line.split()[-1]) / (1 << 20)
                held[name] = held.get(name, 0.0) + mb
                family = re.search(r'family="([^"]+)"', line)
                if family:
                    memtables[family.group(1)] = round(mb, 2)
    return {**{f"{name}_mb": held.get(name, 0.0) for name in MEMORY_GAUGES}, "memtables_by_family_mb": memtables}


def get(base, path, body=None, timeout=120, accept=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method="POST" if data is not None else "GET")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def jobs_in(value):
    """Every job object found in a JSON answer of the admin routes."""
    if isinstance(value, dict):
        if "state" in value and "id" in value:
            yield value
        for v in value.values():
            yield from jobs_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from jobs_in(v)


# Elapsed times are the only part of an answer that may change between two identical graphs.
ELAPSED = re.compile(r"\(\d+(\.\d+)?s\)")


def comparable(text):
    return ELAPSED.sub("(…s)", text)


def reindex(base):
    """Re-indexes every product and waits for the job to end; returns its seconds."""
    started = time.time()
    while True:
        status, body = get(base, "/api/v1/admin/index", body={}, accept="application/json")
        if status == 202:
            job = next(jobs_in(json.loads(body)))["id"]
            break
        if status != 409:
            raise RuntimeError(f"admin index answered {status}: {body[:300]}")
        time.sleep(1)
    while True:
        time.sleep(0.5)
        _, body = get(base, "/api/v1/admin/jobs", accept="application/json")
        state = next((j["state"] for j in jobs_in(json.loads(body)) if j["id"] == job), "running")
        if state == "failed":
            raise RuntimeError(f"the re-index failed: {body[:500]}")
        if state != "running":
            return time.time() - started
        if time.time() - started > 600:
            raise RuntimeError("the re-index did not end in 10 minutes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=int, default=10)
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--products", type=int, default=5)
    ap.add_argument("--work", type=Path, default=Path.home() / ".cache/semgraph/soak")
    ap.add_argument("--binary", type=Path, default=None, help="a semgraph binary (default: build release)")
    ap.add_argument("--sample", type=int, default=120, help="questions compared around each re-index")
    ap.add_argument("--out", type=Path, default=ROOT / "target/soak-report.md")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        sh(["apt-get", "install", "-y", "-qq", "wrk"])
    env = dict(os.environ)
    binary = args.binary
    if binary is None:
        # Built with the benches' features (as `cargo bench` builds it), so the dependencies
        # already built for them are reused rather than built again with other features.
        sh(["cargo", "bench", "--bench", "queries", "--no-run"], cwd=ROOT, env=env)
        binary = Path(env.get("CARGO_TARGET_DIR", ROOT / "target")) / "release/semgraph"
    work = args.work
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    sh(["cargo", "bench", "--bench", "indexer", "--", "--write-corpus", work, "--java-lines", args.lines,
        "--java-products", args.products], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    config = work / "semgraph.toml"
    started = time.time()
    sh([binary, "index", "--config", config], stdout=subprocess.DEVNULL)
    first_index = time.time() - started
    targets = [l.split(" ", 1) for l in (work / "targets.txt").read_text().splitlines() if " " in l]
    methods = [t for kind, t in targets if kind == "method"]
    tables = [t for kind, t in targets if kind == "table"]

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(work / "serve.log", "w")
    proc = subprocess.Popen([binary, "serve", "--config", config, "--bind", f"127.0.0.1:{port}"],
                            stdout=log, stderr=subprocess.STDOUT, env={**env, "RUST_LOG": "warn"})
    rss = []
    stop = threading.Event()

    def sample_rss():
        t0 = time.time()
        while not stop.is_set():
            rss.append((time.time() - t0, rss_mb(proc.pid)))
            stop.wait(5)

    failures = []
    minutes = []
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        threading.Thread(target=sample_rss, daemon=True).start()
        enc = urllib.parse.quote
        callers = [("GET", f"/api/v1/code/callers?fqn={enc(m)}", "") for m in methods]
        impact = [("POST", "/api/v1/recipes/impact", json.dumps({"target": m, "depth": 3})) for m in methods]
        callers_lua = lua(callers, work / "callers.lua")
        impact_lua = lua(impact, work / "impact.lua")
        step = max(1, len(methods) // max(1, args.sample))
        questions = [f"/api/v1/code/callers?fqn={enc(m)}" for m in methods[::step]]
        questions += [f"/api/v1/recipes/impact?target={enc(m)}&depth=3" for m in methods[::step * 2]]
        questions += [f"/api/v1/recipes/table-analysis?table={enc(t)}" for t in tables[:20]]
        compared = differed = 0
        for minute in range(args.minutes):
            procs = [
                subprocess.Popen(["wrk", "-t1", "-c48", "-d60s", "--latency", "-s", callers_lua, base],
                                 stdout=subprocess.PIPE, text=True),
                subprocess.Popen(["wrk", "-t1", "-c16", "-d60s", "--latency", "-s", impact_lua, base],
                                 stdout=subprocess.PIPE, text=True),
            ]
            before = {q: get(base, q) for q in questions}
            secs = reindex(base)
            after = {q: get(base, q) for q in questions}
            for q in questions:
                compared += 1
                (s1, b1), (s2, b2) = before[q], after[q]
                if s1 != s2 or comparable(b1) != comparable(b2):
                    differed += 1
                    if len(failures) < 5:
                        failures.append(f"{q}: {s1} → {s2}\n--- before\n{b1[:2000]}\n--- after\n{b2[:2000]}")
            outs = [p.communicate()[0] for p in procs]
            row = {"minute": minute + 1, "reindex_secs": secs, "rss_mb": rss_mb(proc.pid), **memory_mb(base),
                   "callers": parse_wrk(outs[0]), "impact": parse_wrk(outs[1])}
            minutes.append(row)
            print(json.dumps(row), flush=True)
        stop.set()
    finally:
        stop.set()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()

    five = sum(r["callers"]["5xx"] + r["impact"]["5xx"] for r in minutes)
    load = os.getloadavg()
    md = ["# semgraph soak", "",
          f"{args.minutes} minutes on {os.cpu_count()} cores (load average at the end {load[0]:.1f}, {load[1]:.1f}, "
          f"{load[2]:.1f}); company: {args.lines:,} lines in {args.products} products, first index "
          f"{first_index:.1f} s; {len(methods):,} methods asked. Two `wrk` clients on the same cores: callers "
          "(48 connections) and impact at depth 3 (16 connections); every product re-indexed at the start of "
          "every minute.", "",
          "| minute | callers req/s | p50 | p99 | impact req/s | p50 | p99 | 4xx | 5xx | re-index | RSS "
          "| document cache | block cache | memtables | table readers | heap allocated | heap resident |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in minutes:
        c, i = r["callers"], r["impact"]
        md.append(f"| {r['minute']} | {c['rps']:,.0f} | {c['p50_ms'] or 0:.1f} ms | {c['p99_ms'] or 0:.1f} ms | "
                  f"{i['rps']:,.0f} | {i['p50_ms'] or 0:.1f} ms | {i['p99_ms'] or 0:.1f} ms | "
                  f"{c['4xx'] + i['4xx']} | {c['5xx'] + i['5xx']} | {r['reindex_secs']:.1f} s | {r['rss_mb']:.0f} MB | "
                  + " | ".join(f"{r[f'{name}_mb']:.0f} MB" for name in MEMORY_GAUGES) + " |")
    md += ["", f"**5xx: {five}.** Answers compared around the re-indexes: {compared:,}, differing: **{differed}**.",
           "", "RSS every 5 s (MB): " + ", ".join(f"{m:.0f}" for _, m in rss)]
    if failures:
        md += ["", "## Differences", ""] + [f"```text\n{f}\n```" for f in failures]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(md) + "\n")
    print("\n".join(md))
    print(f"report written to {args.out}")
    sys.exit(1 if five or differed else 0)


if __name__ == "__main__":
    main()
