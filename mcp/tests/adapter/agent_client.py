"""A real MCP client (the PyPI `mcp` SDK) driving `rho --mcp FILE` over stdio.

Usage: agent_client.py SCENARIO RHO CONNECTION_FILE MODE [ARGS...]
MODE is `legacy` (2025-11-25 initialize) or `auto` (2026-07-28 server/discover first).
Each scenario asserts what the adapter answers and prints one JSON summary line last.
Driven by the root package's tests/agent_mcp*.rs; see docs/mcp-adapter.md.
"""

import json
import os
import sys
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.shared.exceptions import MCPError

TOOLS = ["rho_index", "rho_resolve", "rho_call", "rho_read"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


async def tool(c, name, args):
    r = await c.call_tool(name, args)
    assert len(r.content) == 1 and r.content[0].type == "text", r
    assert getattr(r, "structured_content", None) is None, "no structuredContent mirror"
    body = json.loads(r.content[0].text)
    return bool(r.is_error), body


async def ok(c, name, args):
    is_error, body = await tool(c, name, args)
    assert not is_error and body["ok"] is True, (name, args, body)
    return body


async def refused(c, name, args, code=None):
    is_error, body = await tool(c, name, args)
    assert is_error and body["ok"] is False, (name, args, body)
    if code is not None:
        assert body["error"]["code"] == code, (code, body)
    return body["error"]


async def resolve_all(c, operations, known=None, max_bytes=None):
    """Every page of one resolve selection: the objects, in order."""
    objects, cursor = [], None
    while True:
        args = {"operations": operations}
        if known:
            args["knownRefs"] = known
        if cursor:
            args["cursor"] = cursor
        if max_bytes:
            args["maxBytes"] = max_bytes
        v = (await ok(c, "rho_resolve", args))["value"]
        objects += v["objects"]
        if v["complete"]:
            return objects
        assert v["nextCursor"], v
        cursor = v["nextCursor"]


async def call(c, operation, input, **kw):
    return await ok(c, "rho_call", {"operation": operation, "input": input, **kw})


async def walkthrough(c, conn, argv):
    path = argv[0]
    tools = await c.list_tools()
    assert [t.name for t in tools.tools] == TOOLS, tools
    first = (await ok(c, "rho_index", {}))["value"]
    scope = first["scope"]
    assert scope["projectId"] == conn["projectId"] and scope["session"] == conn["session"], scope
    assert scope["methodCount"] > 0 and first["owners"], first
    service_ops = (await ok(c, "rho_index", {"owner": "service"}))["value"]["operations"]
    entries_ref = next(o for o in service_ops if o["name"] == "project.entries")["contract"]["ref"]
    # rho_call before resolve: refused locally, nothing runs.
    err = await refused(c, "rho_call", {"operation": "project.entries", "input": {}}, "invalid")
    assert err["details"]["reason"] == "contract-missing", err
    objs = await resolve_all(c, ["project.entries"])
    contract = next(o for o in objs if o["kind"] == "contract")
    assert contract["ref"] == entries_ref and "projectId" not in contract["body"]["request"]["properties"]
    assert any(o["kind"] == "skill" for o in objs), objs
    listing = (await call(c, "project.entries", {}))["value"]
    names = [e["name"] for e in listing["entries"]]
    assert path in names, names
    bad = await refused(c, "rho_call", {"operation": "project.entries", "input": {"projectId": conn["projectId"]}}, "invalid")
    assert bad["details"]["field"] == "input/projectId", bad
    bad = await refused(c, "rho_call", {"operation": "project.entries", "input": {"nope": 1}}, "invalid")
    await resolve_all(c, ["document.open", "document.edit", "document.save", "document.read"])
    doc = (await call(c, "document.open", {"path": path}))["value"]
    text = "".join(f"line {i} \u00e9\U0001F600 {'x' * 40}\n" for i in range(800))
    edited = (await call(c, "document.edit", {
        "documentId": doc["id"], "expectedVersion": doc["version"], "changeId": "walk-1",
        "edits": [{"start": 0, "end": doc["length"], "text": text}],
    }))["value"]
    saved = (await call(c, "document.save", {
        "documentId": doc["id"], "expectedVersion": edited["version"], "changeId": "walk-2",
    }))["value"]
    big = await call(c, "document.read", {"documentId": doc["id"]})
    assert "value" not in big and big["retained"]["ref"].startswith("rho-result:"), big
    ref = big["retained"]["ref"]
    whole = await refused(c, "rho_read", {"ref": ref}, "limit")
    assert whole["details"]["requiredBytes"] > 16384, whole
    total = (await ok(c, "rho_read", {"ref": ref, "pointer": "/text", "textRange": {"start": 0, "end": 0}}))["value"]["total"]
    got, start, pages = [], 0, 0
    while start < total:
        # 3001 lands inside surrogate pairs now and then: ranges never split a character.
        v = (await ok(c, "rho_read", {"ref": ref, "pointer": "/text", "textRange": {"start": start, "end": start + 3001}}))["value"]
        assert v["start"] == start and v["end"] > start, v
        got.append(v["text"])
        start, pages = v["end"], pages + 1
    assert "".join(got) == text, "pages reassemble the document"
    await ok(c, "rho_read", {"ref": ref, "release": True})
    await refused(c, "rho_read", {"ref": ref, "pointer": "/text"}, "not_found")
    return {"documentId": doc["id"], "version": saved["version"], "pages": pages, "protocol": c.protocol_version}


async def knowledge(c, conn, argv):
    objs = await resolve_all(c, ["project.entries"])
    refs = [o["ref"] for o in objs]
    again = await resolve_all(c, ["project.entries"], known=refs)
    assert all(o.get("known") is True and "body" not in o for o in again), again
    # A ref the adapter never retained complete is not passed on: the body comes back.
    fake = "sha256:" + "0" * 64
    third = await resolve_all(c, ["project.entries"], known=[fake])
    assert all("body" in o for o in third), third
    # More than 16 operations or 128 refs: refused before expanding.
    many = await refused(c, "rho_resolve", {"operations": [f"op{i}" for i in range(17)]}, "limit")
    assert many["details"]["limit"] == "layeredGrantLimits.maxEntries", many
    many = await refused(c, "rho_resolve", {"operations": ["project.entries"], "knownRefs": [fake] * 129}, "limit")
    # A first object that does not fit the page: requiredBytes, complete false.
    small = (await ok(c, "rho_resolve", {"operations": ["document.edit"], "maxBytes": 200}))["value"]
    assert small["complete"] is False and small["objects"] == [] and small["requiredBytes"] > 200, small
    await refused(c, "rho_resolve", {"operations": ["document.edit"], "maxBytes": 65537}, "invalid")
    return {"refs": refs}


async def restart_keeps(c, conn, argv):
    """A new adapter process under the same connection starts with the bodies already held."""
    refs = json.loads(argv[0])
    again = await resolve_all(c, ["project.entries"], known=refs)
    assert all(o.get("known") is True for o in again), again
    listing = await call(c, "project.entries", {})
    return {"entries": len(listing["value"]["entries"])}


async def refetch(c, conn, argv):
    """Under another connection the adapter holds none of the old bodies: they come back."""
    refs = json.loads(argv[0])
    again = await resolve_all(c, ["project.entries"], known=refs)
    assert again and all("body" in o and not o.get("known") for o in again), again
    return {"refetched": len(again)}


async def outside(c, conn, argv):
    op = argv[0]
    err = await refused(c, "rho_resolve", {"operations": [op]})
    assert err["code"] in ("forbidden", "not_found"), err
    err = await refused(c, "rho_call", {"operation": op, "input": {}}, "invalid")
    assert err["details"]["reason"] == "contract-missing", err
    return {"resolve": "refused", "call": err["details"]["reason"]}


async def wait_line():
    return await anyio.to_thread.run_sync(sys.stdin.readline)


async def revoked(c, conn, argv):
    await resolve_all(c, ["project.entries"])
    await call(c, "project.entries", {})
    print("READY", flush=True)
    await wait_line()
    err = await refused(c, "rho_call", {"operation": "project.entries", "input": {}})
    assert err["code"] in ("unauthorized", "forbidden"), err
    err2 = await refused(c, "rho_index", {})
    return {"call": err["code"], "index": err2["code"]}


async def changed_contract(c, conn, argv):
    await resolve_all(c, ["testing.echo", "testing.revise"])
    first = await call(c, "testing.echo", {"text": "a"})
    print("READY", flush=True)
    await wait_line()  # the test changes testing.echo's contract now
    err = await refused(c, "rho_call", {"operation": "testing.echo", "input": {"text": "b"}}, "stale")
    err2 = await refused(c, "rho_call", {"operation": "testing.echo", "input": {"text": "b"}}, "invalid")
    assert err2["details"]["reason"] == "contract-missing", err2
    await resolve_all(c, ["testing.echo"])
    await call(c, "testing.echo", {"text": "c"})
    large = await refused(c, "rho_resolve", {"operations": ["testing.large"]}, "limit")
    return {"stale": err["details"], "first": first["value"]}


async def edits(c, conn, argv):
    """Appends N lines, each acknowledged on stdout as `ACK <i> <version>`; a lost or refused
    attempt is retried by this client (never by the adapter) with the same changeId."""
    path, n = argv[0], int(argv[1])
    await resolve_all(c, ["document.open", "document.edit", "document.read"])
    doc = (await call(c, "document.open", {"path": path}))["value"]
    version, length = doc["version"], doc["length"]
    outcomes = {}
    for i in range(n):
        line = f"edit {i}\n"
        args = {"operation": "document.edit", "input": {
            "documentId": doc["id"], "expectedVersion": version, "changeId": f"kill-{i}",
            "edits": [{"start": length, "end": length, "text": line}]}}
        deadline = time.monotonic() + 60
        while True:
            is_error, body = await tool(c, "rho_call", args)
            if not is_error:
                break
            code = body["error"]["code"]
            outcomes[code] = outcomes.get(code, 0) + 1
            assert code in ("unavailable", "unknown"), body
            assert time.monotonic() < deadline, body
            await anyio.sleep(0.1)
        version, length = body["value"]["version"], body["value"]["length"]
        print(f"ACK {i} {version}", flush=True)
        await anyio.sleep(0.05)
    return {"documentId": doc["id"], "version": version, "outcomes": outcomes}


async def offline(c, conn, argv):
    """No service: tools/list still answers; calls are tool errors and the adapter stays up."""
    tools = await c.list_tools()
    assert [t.name for t in tools.tools] == TOOLS, tools
    err = await refused(c, "rho_index", {}, "unavailable")
    await refused(c, "rho_call", {"operation": "project.entries", "input": {}}, "invalid")
    await refused(c, "rho_read", {"ref": "rho-result:none"}, "not_found")
    await refused(c, "rho_index", {}, "unavailable")
    try:
        r = await c.call_tool("no_such_tool", {})
    except MCPError as e:  # an unknown tool is a protocol fault: a JSON-RPC error
        fault = e.error.code
    else:
        raise AssertionError(f"an unknown tool must be a JSON-RPC error, got {r}")
    await refused(c, "rho_index", {}, "unavailable")
    return {"index": err["code"], "unknownTool": fault}


async def retention(c, conn, argv):
    """Run with RHO_MAX_RESULTS=1: a second large reply is refused before dispatch and the
    first stays readable; after release the next call is retained again."""
    await resolve_all(c, ["document.open", "document.read"])
    doc = (await call(c, "document.open", {"path": argv[0]}))["value"]
    first = (await call(c, "document.read", {"documentId": doc["id"]}))["retained"]
    err = await refused(c, "rho_call", {"operation": "document.read", "input": {"documentId": doc["id"]}}, "limit")
    assert err["details"]["limit"] == "RHO_MAX_RESULTS", err
    page = (await ok(c, "rho_read", {"ref": first["ref"], "pointer": "/text", "textRange": {"start": 0, "end": 10}}))["value"]
    assert page["text"] == "0123456789", page
    await ok(c, "rho_read", {"ref": first["ref"], "release": True})
    again = (await call(c, "document.read", {"documentId": doc["id"]}))["retained"]
    assert again["ref"] != first["ref"], again
    return {"limit": err["details"]["limit"]}


async def too_large(c, conn, argv):
    """Run with a small RHO_MAX_RESULT_BYTES: the reply is refused with the operation's identity."""
    await resolve_all(c, ["document.open", "document.read"])
    doc = (await call(c, "document.open", {"path": argv[0]}))["value"]
    err = await refused(c, "rho_call", {"operation": "document.read", "input": {"documentId": doc["id"]}}, "limit")
    d = err["details"]
    assert d["limit"] == "RHO_MAX_RESULT_BYTES" and d["ran"] is True, err
    assert d["identity"]["operation"] == "document.read", err
    return {"limit": d["limit"]}


async def evicted(c, conn, argv):
    """Run with RHO_KNOWLEDGE_CACHE_ENTRIES=2: resolving another owner's operation evicts the
    first bodies (fetched outputs are still returned); a call then needs a refetch."""
    first = await resolve_all(c, ["project.entries"])
    assert len(first) == 2 and all("body" in o for o in first), first
    await call(c, "project.entries", {})
    second = await resolve_all(c, ["document.open"])
    assert all("body" in o for o in second), second
    err = await refused(c, "rho_call", {"operation": "project.entries", "input": {}}, "invalid")
    assert err["details"]["reason"] in ("contract-missing", "guidance-missing"), err
    # The evicted refs are no longer passed on as known: their bodies come back.
    again = await resolve_all(c, ["project.entries"], known=[o["ref"] for o in first])
    assert all("body" in o for o in again), again
    await call(c, "project.entries", {})
    return {"refused": err["details"]["reason"]}


async def managed(c, conn, argv):
    """A managed intent through the adapter: action.submit of r.execute is recorded write-once in
    the adapter's store before delivery; the same identity again returns the original run (R runs
    once); changed input under it is refused locally; the run is observed to its end."""
    import hashlib
    path, op = argv[0], argv[1]
    with open(argv[2], "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    await resolve_all(c, ["action.submit", "action.observe"])
    body = {"operationId": op, "action": "r.execute", "actionVersion": "0.2.0",
            "input": {"script": {"kind": "disk", "path": path, "digest": digest},
                      "args": ["first"], "requirements": [], "artifacts": [], "completion": None}}
    first = (await call(c, "action.submit", body))["value"]
    assert first["delivery"] == "sent", first
    again = (await call(c, "action.submit", body))["value"]
    assert again["operationId"] == op and again["plan"] == first["plan"], again
    changed = dict(body, input=dict(body["input"], args=["second"]))
    err = await refused(c, "rho_call", {"operation": "action.submit", "input": changed}, "conflict")
    deadline = time.monotonic() + 60
    while True:
        seen = (await call(c, "action.observe", {"operationId": op}))["value"]
        if seen["execution"] != "running" or time.monotonic() > deadline:
            break
        await anyio.sleep(0.2)
    assert seen["execution"] == "exited", seen
    return {"execution": seen["execution"], "exitCode": seen["exit"]["exitCode"], "conflict": err["message"]}


async def version_stale(c, conn, argv):
    """An edit refused `stale` for an older expectedVersion keeps the cached contract: the next
    call needs no rho_resolve (only the contract precondition's stale, which names the current
    contract, drops it)."""
    await resolve_all(c, ["document.open", "document.edit"])
    doc = (await call(c, "document.open", {"path": argv[0]}))["value"]
    edit = lambda version, change, text: {"documentId": doc["id"], "expectedVersion": version, "changeId": change,
                                          "edits": [{"start": 0, "end": 0, "text": text}]}
    first = (await call(c, "document.edit", edit(doc["version"], "vs-1", "a")))["value"]
    err = await refused(c, "rho_call", {"operation": "document.edit", "input": edit(doc["version"], "vs-2", "b")}, "stale")
    assert "currentHash" not in err["details"], err
    again = (await call(c, "document.edit", edit(first["version"], "vs-3", "c")))["value"]
    return {"stale": err["details"], "version": again["version"]}


async def relay(c, conn, argv):
    """Another program's Agent: resolves the operations named in argv[0] (comma separated), prints
    `READY`, then for each stdin line `{"id", "operation", "input"}` makes one rho_call and prints
    `{"id", "ok", "value"|"error"}` (a retained reply is read back whole). Ends at EOF. Used by the
    browser end-to-end suites (ui/tests/support/mcpAgent.mjs) so their Agent goes through
    `rho --mcp FILE` like a real one."""
    await resolve_all(c, argv[0].split(","))
    print("READY", flush=True)
    calls = 0
    while True:
        line = await wait_line()
        if not line:
            break
        req = json.loads(line)
        is_error, body = await tool(c, "rho_call", {"operation": req["operation"], "input": req["input"], "maxBytes": 65536})
        if not is_error and "retained" in body:
            ref = body["retained"]["ref"]
            value = (await ok(c, "rho_read", {"ref": ref}))["value"]
            await ok(c, "rho_read", {"ref": ref, "release": True})
            body = {"ok": True, "value": value}
        out = {"id": req["id"], "ok": not is_error}
        if is_error:
            out["error"] = body["error"]
        else:
            out["value"] = body["value"]
        print(json.dumps(out), flush=True)
        calls += 1
    return {"calls": calls}


SCENARIOS = {
    "managed": managed, "relay": relay, "version_stale": version_stale,
    "walkthrough": walkthrough, "knowledge": knowledge, "restart_keeps": restart_keeps, "refetch": refetch,
    "outside": outside, "revoked": revoked, "changed_contract": changed_contract, "edits": edits, "offline": offline, "retention": retention, "too_large": too_large, "evicted": evicted,
}


async def main():
    scenario, rho, conn_file, mode, *rest = sys.argv[1:]
    conn = json.load(open(conn_file))
    # The SDK passes only a small default environment to the server; hand on RHO_* and RUST_LOG.
    env = get_default_environment()
    env.update({k: v for k, v in os.environ.items() if k.startswith("RHO_") or k == "RUST_LOG"})
    params = StdioServerParameters(command=rho, args=["--mcp", conn_file], env=env)
    async with Client(params, mode=mode) as c:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert c.protocol_version == expected, c.protocol_version
        summary = await SCENARIOS[scenario](c, conn, rest)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    anyio.run(main)
