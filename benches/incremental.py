#!/usr/bin/env python3
"""Incremental re-index on a real tree: one changed file and 100 changed files.

Copies TREE (never modified) into WORK, indexes it fully into a fresh store, then
- re-indexes it unchanged (every file's facts reused),
- changes 1 Java file and re-indexes (incremental),
- changes 100 Java files and re-indexes (incremental),
- re-indexes with `--full` (the cost an incremental run is compared with),
and prints one markdown table of wall times with the load average seen at each run, plus
what each run's summary says it parsed and reused. A change appends a comment line to the
file (its content, hence its digest, changes; its facts do not); then one file gets a line
inserted at its top (every declaration moves, none changes: the other files' resolved calls
and findings are reused) and one a method added (a declaration changes: the files that
mention its name resolve again, and every file is recognised again) — once in a file whose
name another file declares too (every file resolves again) and once in one whose name is
its own.
Targets (spring-boot, release build): 1 file <= 2 s, 100 files <= 5 s.

    cargo build --release
    python3 benches/incremental.py --bin target/release/semgraph --tree /tmp/repos/spring-boot
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import scratch


def index(bin_path, tree, store, full=False):
    cmd = [str(bin_path), "index", "--store", str(store)]
    if full:
        cmd.append("--full")
    cmd.append(str(tree))
    load = os.getloadavg()[0]
    started = time.monotonic()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    seconds = time.monotonic() - started
    m = re.search(r": (\d+) code files parsed, (\d+) unchanged", out)
    parsed, reused = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    c = re.search(r"resolved calls of (\d+) reused", out)
    calls = int(c.group(1)) if c else None
    f = re.search(r"findings of (\d+) reused", out)
    findings = int(f.group(1)) if f else None
    return seconds, load, parsed, reused, calls, findings


def touch(files, n, round_no):
    for f in files[:n]:
        with open(f, "a", encoding="utf-8") as out:
            out.write(f"\n// edited {round_no}\n")


def edit_top(path, round_no):
    """A line inserted at the top: every declaration of the file moves, none changes."""
    text = Path(path).read_text(encoding="utf-8")
    Path(path).write_text(f"// edited {round_no}\n" + text, encoding="utf-8")


def add_method(path):
    """A private method added before the file's last brace: a declaration changes."""
    text = Path(path).read_text(encoding="utf-8")
    at = text.rfind("}")
    Path(path).write_text(text[:at] + "\tprivate void semgraphBenchProbe() {\n\t}\n\n" + text[at:], encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the semgraph binary")
    ap.add_argument("--tree", required=True, help="a repository to copy (never modified)")
    ap.add_argument("--work", default="/tmp/semgraph-bench-incremental", help=scratch.HELP)
    args = ap.parse_args()
    work = scratch.fresh(args.work, ".semgraph-bench-incremental")
    tree = work / Path(args.tree).name
    shutil.copytree(args.tree, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    store = work / "store"
    java = sorted(str(p) for p in tree.rglob("*.java") if "/src/main/" in str(p))
    rows = []
    rows.append(("full index, fresh store", *index(args.bin, tree, store, full=True)))
    rows.append(("re-index, nothing changed", *index(args.bin, tree, store)))
    touch(java, 1, 1)
    rows.append(("1 file changed", *index(args.bin, tree, store)))
    touch(java, 100, 2)
    rows.append(("100 files changed", *index(args.bin, tree, store)))
    edit_top(java[0], 3)
    rows.append(("1 file, a line inserted at its top", *index(args.bin, tree, store)))
    add_method(java[0])
    rows.append(("1 file, a method added", *index(args.bin, tree, store)))
    # The first file above declares a name other files declare too (a sample copied into
    # many integration tests): every file resolves again. The first file whose class name
    # (its path under `java/`) no other file has is the common case.
    by_name = {}
    for p in tree.rglob("*.java"):
        by_name.setdefault(str(p).rsplit("/java/", 1)[-1], []).append(p)
    unique = next(p for p in java if len(by_name[p.rsplit("/java/", 1)[-1]]) == 1)
    add_method(unique)
    rows.append(("1 file, a method added, a name declared once", *index(args.bin, tree, store)))
    rows.append(("re-index --full", *index(args.bin, tree, store, full=True)))
    print(f"tree: {args.tree} ({len(java)} main Java files), binary: {args.bin}\n")
    print(
        "| run | seconds | load average (1 min) | code files parsed | reused "
        "| resolved calls reused | findings reused |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, seconds, load, parsed, reused, calls, findings in rows:
        print(f"| {name} | {seconds:.2f} | {load:.2f} | {parsed} | {reused} | {calls} | {findings} |")
    full = rows[-1][1]
    for name, seconds, *_ in rows[2:6]:
        print(f"\n{name}: {seconds:.2f} s, full/incremental = {full / seconds:.2f}")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
