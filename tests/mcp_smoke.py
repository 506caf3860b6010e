#!/usr/bin/env python3
"""MCP smoke test with a client this project did not write: the official Python SDK.

Indexes the fixture company into a temporary store with the given `semgraph` binary,
starts `semgraph serve` on a free loopback port, and over Streamable HTTP, once with the
initialize handshake (a session) and once with the SDK's default negotiation: lists the
tools (expects exactly six) and calls `code` `search` with q=OrderService. Then scrapes
`/metrics` and reads it with the official Prometheus client's OpenMetrics parser (strict:
a malformed exposition raises), expecting the MCP requests counted under `/mcp`. Then
stops the server with SIGTERM and expects it to exit while clients have come and gone.

    python tests/mcp_smoke.py path/to/semgraph

Exits non-zero, saying what went wrong, on any failure.
"""

import asyncio
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from mcp import Client
from prometheus_client.openmetrics.parser import text_string_to_metric_families

SIX_TOOLS = ["discover", "code", "db", "config", "wiki", "execute"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(message: str) -> None:
    print(f"mcp smoke test FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str, server: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            fail(f"semgraph serve exited with {server.returncode} before answering")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    fail(f"semgraph serve did not answer {base}/healthz within {seconds}s")


async def check(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:
        instructions = client.instructions or ""
        if "discover" not in instructions or "FETCH EVERY PAGE" not in instructions:
            fail(f"[{mode}] the server instructions lack the playbook: {instructions!r}")
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        if names != SIX_TOOLS:
            fail(f"[{mode}] expected the tools {SIX_TOOLS}, got {names}")
        result = await client.call_tool("code", {"endpoint": "search", "params": {"q": "OrderService"}})
        texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
        if result.is_error or len(texts) != 1:
            fail(f"[{mode}] code search answered an error or not one text block: {result!r}")
        text = texts[0]
        if "com.acme.orders.service.OrderService" not in text or "Page 1 of" not in text:
            fail(f"[{mode}] code search does not name OrderService in a paged document:\n{text}")
        wrong = await client.call_tool("code", {"endpoint": "callers", "params": {"name": "x"}})
        if not wrong.is_error or "Did you mean `fqn`?" not in wrong.content[0].text:
            fail(f"[{mode}] a wrong parameter name is not a tool error naming `fqn`: {wrong!r}")
        print(
            f"mcp smoke [{mode}]: protocol {client.protocol_version}, {len(names)} tools, "
            f"code search {len(text)} chars"
        )


def check_metrics(base: str) -> None:
    with urllib.request.urlopen(f"{base}/metrics", timeout=10) as r:
        content_type = r.headers.get("content-type", "")
        text = r.read().decode()
    if not content_type.startswith("application/openmetrics-text"):
        fail(f"/metrics answered {content_type!r}")
    try:
        families = {f.name: f for f in text_string_to_metric_families(text)}
    except ValueError as e:
        fail(f"/metrics is not valid OpenMetrics: {e}\n{text[:2000]}")
    expected = {
        "semgraph_http_requests": "counter",
        "semgraph_http_request_duration_seconds": "histogram",
        "semgraph_store_generation": "gauge",
        "semgraph_store_size_bytes": "gauge",
        "semgraph_product_nodes": "gauge",
    }
    # semgraph_index_runs (admin jobs) is there from the start only with a config's products.
    for name, kind in expected.items():
        if name not in families:
            fail(f"/metrics has no {name}: {sorted(families)}")
        if families[name].type != kind:
            fail(f"{name} is a {families[name].type}, not a {kind}")
    mcp = [
        s
        for s in families["semgraph_http_requests"].samples
        if s.labels.get("endpoint") == "/mcp" and s.labels.get("status", "").startswith("2")
    ]
    if not mcp:
        fail("the MCP requests are not counted under endpoint=/mcp")


def main() -> None:
    # rmcp closes a session on DELETE and answers 202, which this SDK logs as a failed
    # termination (it expects 200 or 204); the session is closed all the same.
    logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)
    if len(sys.argv) != 2:
        fail("usage: mcp_smoke.py path/to/semgraph")
    binary = os.path.abspath(sys.argv[1])
    if not os.access(binary, os.X_OK):
        fail(f"no semgraph binary at {binary}")
    config = os.path.join(ROOT, "fixtures", "acme", "semgraph.toml")
    with tempfile.TemporaryDirectory(prefix="semgraph-mcp-smoke-") as tmp:
        store = os.path.join(tmp, "store")
        indexed = subprocess.run(
            [binary, "index", "--config", config, "--store", store],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if indexed.returncode != 0:
            fail(f"semgraph index failed:\n{indexed.stderr}")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log_path = os.path.join(tmp, "serve.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                [binary, "serve", "--store", store, "--bind", f"127.0.0.1:{port}"],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
            try:
                wait_healthy(base, server, 60)
                for mode in ["legacy", "auto"]:
                    asyncio.run(check(f"{base}/mcp", mode))
                check_metrics(base)
            except SystemExit:
                server.kill()
                server.wait()
                with open(log_path) as f:
                    print(f.read()[-4000:], file=sys.stderr)
                raise
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                fail("semgraph serve did not stop within 30s of SIGTERM")
    print("mcp_smoke: 3 passed, 0 failed")


if __name__ == "__main__":
    main()
