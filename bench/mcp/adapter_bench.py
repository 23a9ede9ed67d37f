"""Adapter benchmark (issue 7): round trip of `rho_call project.entries` (first page) from the
Python MCP SDK client through `rho --mcp FILE`, next to a direct HTTP call of the same operation
with the same grant token, interleaved in the same run.

    python adapter_bench.py <rho> <connection-file> [calls]
"""

import http.client
import json
import statistics
import sys
import time
from urllib.parse import urlparse

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


async def main():
    rho, file, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 500
    conn = json.load(open(file))
    u = urlparse(conn["url"])
    direct = http.client.HTTPConnection(u.hostname, u.port)
    body = json.dumps({"projectId": conn["projectId"]})
    headers = {"Authorization": f"Bearer {conn['token']}", "Content-Type": "application/json"}
    params = StdioServerParameters(command=rho, args=["--mcp", file])
    async with Client(params, mode="legacy") as c:
        r = await c.call_tool("rho_resolve", {"operations": ["project.entries"]})
        assert not r.is_error, r
        args = {"operation": "project.entries", "input": {}}
        adapter, http_ms = [], []
        for i in range(calls + 20):
            t = time.perf_counter_ns()
            r = await c.call_tool("rho_call", args)
            a = time.perf_counter_ns() - t
            assert not r.is_error, r.content[0].text
            t = time.perf_counter_ns()
            direct.request("POST", "/api/v2/project.entries", body, headers)
            resp = direct.getresponse()
            payload = resp.read()
            d = time.perf_counter_ns() - t
            assert resp.status == 200, payload
            if i >= 20:  # warm-up
                adapter.append(a / 1e6)
                http_ms.append(d / 1e6)
    for name, xs in (("rho_call via adapter (Python SDK, stdio)", adapter), ("direct HTTP, same token", http_ms)):
        print(json.dumps({"bench": name, "calls": len(xs), "p50_ms": round(statistics.median(xs), 3),
                          "p90_ms": round(pct(xs, 0.9), 3)}))
    print(json.dumps({"bench": "adapter overhead at p50", "ms": round(statistics.median(adapter) - statistics.median(http_ms), 3)}))


anyio.run(main)
