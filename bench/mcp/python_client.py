"""Benchmark driver: the per-call cost of the Python SDK client calling `echo` on the same
stdio server. Usage: python_client.py <server-command> <calls>; prints one JSON line."""

import asyncio
import json
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    command, calls = sys.argv[1], int(sys.argv[2])
    started = time.perf_counter()
    async with stdio_client(StdioServerParameters(command=command, args=[])) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            await session.list_tools()
            startup = time.perf_counter() - started
            await session.call_tool("echo", {"message": "x"})
            t = time.perf_counter()
            for _ in range(calls):
                await session.call_tool("echo", {"message": "x"})
            per_call = (time.perf_counter() - t) / max(calls, 1)
    print(json.dumps({"client": "python", "calls": calls, "startup_ms": startup * 1e3,
                      "per_call_us": per_call * 1e6}))


asyncio.run(main())
