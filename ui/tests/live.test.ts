//! The binding fed by events that carry their edits: applied without a read, caught up by `document.changes` after a missed event, a gap, a stale edit or a lost reply.

import { describe, expect, it } from "vitest";
import { ChangeSet, Text } from "@codemirror/state";
import { Binding, type Surface } from "../src/sync/binding";
import { change, stringOf, textOf } from "../src/sync/text";
import { FakeBuffer, events, liveTransport, rng } from "./support/fake";

class Editor implements Surface {
  doc: Text;
  constructor(text: string) {
    this.doc = textOf(text);
  }
  applyRemote(changes: ChangeSet): void {
    this.doc = changes.apply(this.doc);
  }
  composing(): boolean {
    return false;
  }
  changed(): void {}
  type(b: Binding, from: number, to: number, insert: string): void {
    const c = change(this.doc.length, from, to, insert);
    this.doc = c.apply(this.doc);
    b.local(c);
  }
  get text(): string {
    return stringOf(this.doc);
  }
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const PIECES = ["a", "😀", "\r\n", "é", "👩‍🔬", "x\r", " "];

function safe(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

/** A client whose events carry edits; `drop` loses some events on the way (a missed event). */
function client(buf: FakeBuffer, name: string, random: () => number, opts: { lose?: number; drop?: number } = {}) {
  const t = liveTransport(buf, name, { delay: () => Math.floor(random() * 4), lose: () => random() < (opts.lose ?? 0) });
  let n = 0;
  const b = new Binding(t, { version: buf.version, text: buf.text, dirty: false }, { burstMs: 2, backoff: () => 1, newId: () => `${name}-${n++}` });
  const ed = new Editor(buf.text);
  b.attach(ed);
  events(buf, () => Math.floor(random() * 5), (v, a, c) => {
    if (random() < (opts.drop ?? 0)) return;
    b.remote(v, a, true, c);
  });
  return { b, ed };
}

async function typeRandomly(ed: Editor, b: Binding, random: () => number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const from = safe(ed.text, Math.floor(random() * (ed.doc.length + 1)));
    const to = safe(ed.text, Math.min(ed.doc.length, from + (random() < 0.3 ? Math.floor(random() * 3) : 0)));
    ed.type(b, from, Math.max(from, to), PIECES[Math.floor(random() * PIECES.length)] ?? "a");
    await wait(Math.floor(random() * 6));
  }
}

/** Flushes and waits until every client shows the buffer (no resync: events and catch-up only). */
async function converge(buf: FakeBuffer, clients: { b: Binding; ed: Editor }[]): Promise<void> {
  for (let round = 0; round < 100; round++) {
    for (const c of clients) await c.b.flush();
    await wait(20);
    if (clients.every((c) => c.ed.text === buf.text && c.b.version === buf.version)) return;
  }
}

describe("events with edits", () => {
  for (let seed = 1; seed <= 20; seed++) {
    it(`two writers converge without reading the text (seed ${seed})`, async () => {
      const random = rng(seed * 7919);
      const buf = new FakeBuffer("x <- 1\r\nplot(x) # 😀\n");
      const one = client(buf, "local", random, { lose: seed % 3 === 0 ? 0.2 : 0, drop: seed % 5 === 0 ? 0.3 : 0 });
      const two = client(buf, "agent:claude", random);
      await Promise.all([typeRandomly(one.ed, one.b, random, 20), typeRandomly(two.ed, two.b, random, 20)]);
      await converge(buf, [one, two]);
      // A missed event is noticed at the next one (or a stale reply); make sure the last is seen.
      if (one.b.version !== buf.version) await one.b.resync();
      expect(one.ed.text).toBe(buf.text);
      expect(two.ed.text).toBe(buf.text);
      expect(two.b.text()).toBe(buf.text);
      expect(one.b.arrivals.reads + two.b.arrivals.reads).toBe(0);
      expect(one.b.arrivals.edits + two.b.arrivals.edits).toBeGreaterThan(0);
      expect(new Set(buf.applied).size).toBe(buf.applied.length);
    }, 20000);
  }

  it("a foreign edit is applied from its event and keeps the cursor's text around it", async () => {
    const buf = new FakeBuffer("a😀b\r\nc");
    const { b, ed } = client(buf, "local", () => 0);
    ed.type(b, 7, 7, "!"); // pending, not yet sent
    buf.edit("agent:x", { expectedVersion: 1, changeId: "a1", edits: [{ start: 0, end: 1, text: "A" }, { start: 3, end: 3, text: "é" }] });
    await wait(5);
    await b.flush();
    expect(ed.text).toBe("A😀éb\r\nc!");
    expect(buf.text).toBe("A😀éb\r\nc!");
    expect(b.arrivals).toEqual({ edits: 1, reads: 0 });
  });

  it("after a gap, resync catches up by document.changes, page by page", async () => {
    const buf = new FakeBuffer("0");
    const { b, ed } = client(buf, "local", () => 0, { drop: 1 });
    for (let i = 1; i <= 7; i++) {
      buf.edit("agent:x", { expectedVersion: buf.version, changeId: `a${i}`, edits: [{ start: buf.text.length, end: buf.text.length, text: String(i) }] });
    }
    await wait(5);
    expect(ed.text).toBe("0");
    await b.resync();
    expect(ed.text).toBe("01234567");
    expect(b.version).toBe(8);
    expect(b.arrivals).toEqual({ edits: 7, reads: 0 });
  });

  it("shared undo arrives as the inverse's edits", async () => {
    const buf = new FakeBuffer("one");
    const { b, ed } = client(buf, "local", () => 0);
    ed.type(b, 3, 3, " two");
    await b.flush();
    buf.edit("agent:claude", { expectedVersion: buf.version, changeId: "a1", edits: [{ start: 0, end: 0, text: ">" }] });
    await wait(5);
    expect(await b.undo()).toBe("agent:claude");
    expect(ed.text).toBe("one two");
    expect(b.arrivals.reads).toBe(0);
  });

  it("without edits in the event (over the bound) the text is read and diffed", async () => {
    const buf = new FakeBuffer("abc");
    const { b, ed } = client(buf, "local", () => 0);
    buf.subscribe(() => undefined);
    buf.edit("agent:x", { expectedVersion: 1, changeId: "big", edits: [{ start: 3, end: 3, text: "d" }] });
    // The event said edits: null; the log too (an open after a close looks the same).
    const last = buf.log[buf.log.length - 1];
    if (last) last.edits = null;
    b.remote(2, "agent:x", true, { kind: "edit", baseVersion: 1, edits: null });
    await b.flush();
    await wait(5);
    expect(ed.text).toBe("abcd");
    expect(b.arrivals.reads).toBeGreaterThan(0);
  });
});
