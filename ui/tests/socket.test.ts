//! The calls socket against a fake wire: answers by id in any order, refusals, lost calls on close, and reopening with a bounded backoff.

import { describe, expect, it } from "vitest";
import { ApiError, LostReply } from "../src/api/errors";
import { CallSocket, type Wire } from "../src/api/socket";

class FakeWire implements Wire {
  readyState = 0;
  sent: { id: number; op: string; body: unknown }[] = [];
  closedByClient = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    this.closedByClient = true;
    this.readyState = 3;
  }
  opened(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  answer(id: number | null, status: number, envelope: unknown): void {
    this.onmessage?.({ data: JSON.stringify({ id, status, envelope }) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
}

function setup() {
  const wires: FakeWire[] = [];
  let clock = 0;
  const s = new CallSocket(
    () => {
      const w = new FakeWire();
      wires.push(w);
      return w;
    },
    () => clock,
  );
  return { s, wires, tick: (ms: number) => (clock += ms) };
}

describe("the calls socket", () => {
  it("is not ready until open, then answers each call by its id in any order", async () => {
    const { s, wires } = setup();
    expect(s.ready()).toBe(false);
    expect(wires).toHaveLength(1);
    expect(s.ready()).toBe(false);
    expect(wires).toHaveLength(1);
    wires[0]!.opened();
    expect(s.ready()).toBe(true);
    const a = s.call<{ version: number }>("document.edit", { n: 1 });
    const b = s.call<{ version: number }>("document.edit", { n: 2 });
    const first = wires[0]!.sent[0]!;
    const second = wires[0]!.sent[1]!;
    expect(first.op).toBe("document.edit");
    expect(first.body).toEqual({ n: 1 });
    wires[0]!.answer(second.id, 200, { ok: true, value: { version: 8 } });
    wires[0]!.answer(first.id, 200, { ok: true, value: { version: 7 } });
    await expect(a).resolves.toEqual({ version: 7 });
    await expect(b).resolves.toEqual({ version: 8 });
  });

  it("turns a refusal into an ApiError with the envelope's code, status and details", async () => {
    const { s, wires } = setup();
    s.ready();
    wires[0]!.opened();
    const p = s.call("document.edit", {});
    wires[0]!.answer(wires[0]!.sent[0]!.id, 409, { ok: false, error: { code: "stale", message: "version 3 is current", details: { currentVersion: 3 } } });
    const e = await p.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code: "stale", status: 409, details: { currentVersion: 3 } });
  });

  it("fails unanswered calls as lost when the socket closes, and reopens after a backoff", async () => {
    const { s, wires, tick } = setup();
    s.ready();
    wires[0]!.opened();
    const p = s.call("document.edit", { changeId: "c1" });
    wires[0]!.answer(null, 400, { ok: false, error: { code: "invalid", message: "x" } });
    wires[0]!.answer(999, 200, { ok: true, value: {} });
    wires[0]!.drop();
    await expect(p).rejects.toBeInstanceOf(LostReply);
    // Not open: the caller goes by fetch; no new socket before the backoff has passed.
    expect(s.ready()).toBe(false);
    expect(wires).toHaveLength(1);
    await expect(s.call("document.edit", {})).rejects.toBeInstanceOf(LostReply);
    tick(250);
    expect(s.ready()).toBe(false);
    expect(wires).toHaveLength(2);
    wires[1]!.opened();
    expect(s.ready()).toBe(true);
  });

  it("close() ends the socket and fails what is in flight", async () => {
    const { s, wires } = setup();
    s.ready();
    wires[0]!.opened();
    const p = s.call("document.undo", {});
    s.close();
    expect(wires[0]!.closedByClient).toBe(true);
    await expect(p).rejects.toBeInstanceOf(LostReply);
  });
});
