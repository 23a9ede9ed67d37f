//! The shared-scope selection store: shown at once, confirmed by the reply, reverted on a refusal, kept current by events (or a read when the event leaves the keys out), never moved back by an older version.

import { afterEach, describe, expect, it, vi } from "vitest";
import { heldKeys, select, selectionChanged } from "../src/data/selection";

type Reply = { ok: boolean; value?: unknown; error?: { code: string; message: string } };

function serve(answer: (op: string, body: Record<string, unknown>) => Reply) {
  const calls: { op: string; body: Record<string, unknown> }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: { body: string }) => {
    const op = url.split("/").pop() ?? "";
    const body = JSON.parse(init.body) as Record<string, unknown>;
    calls.push({ op, body });
    return new Response(JSON.stringify(answer(op, body)), { status: 200 });
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("the selection store", () => {
  it("selects in the shared scope and takes the reply's version", async () => {
    const calls = serve(() => ({ ok: true, value: { version: 3 } }));
    await select("p1", "gene", ["a", "b"]);
    expect(calls[0]).toMatchObject({ op: "selection.set", body: { projectId: "p1", scope: "shared", namespace: "gene", keys: ["a", "b"] } });
    expect([...heldKeys("p1", "gene")]).toEqual(["a", "b"]);
    // An older event does not move it back; a newer one does.
    selectionChanged("p1", { scope: "shared", namespace: "gene", version: 2, keys: ["old"] });
    expect([...heldKeys("p1", "gene")]).toEqual(["a", "b"]);
    selectionChanged("p1", { scope: "shared", namespace: "gene", version: 4, keys: ["c"] });
    expect([...heldKeys("p1", "gene")]).toEqual(["c"]);
    // Another project's selection of the same namespace is apart.
    expect(heldKeys("p2", "gene").size).toBe(0);
  });

  it("reverts a refused selection", async () => {
    serve(() => ({ ok: true, value: { version: 1 } }));
    await select("p3", "gene", ["kept"]);
    serve(() => ({ ok: false, error: { code: "limit", message: "too many" } }));
    await expect(select("p3", "gene", ["x", "y"])).rejects.toThrow("too many");
    expect([...heldKeys("p3", "gene")]).toEqual(["kept"]);
  });

  it("reads the keys when the event leaves them out, and ignores other scopes", async () => {
    const calls = serve(() => ({ ok: true, value: { scope: "shared", namespace: "big", keys: ["k1", "k2"], version: 7 } }));
    selectionChanged("p4", { scope: "view", namespace: "big", version: 1, keys: ["v"] });
    expect(heldKeys("p4", "big").size).toBe(0);
    selectionChanged("p4", { scope: "shared", namespace: "big", version: 7, keys: null });
    await flush();
    await flush();
    expect(calls.map((c) => c.op)).toEqual(["selection.read"]);
    expect([...heldKeys("p4", "big")]).toEqual(["k1", "k2"]);
  });
});
