//! Keystrokes leave at once with one edit in flight per tab; what is typed meanwhile leaves next, in order, never lost; a burst is one shared-undo step.

import { describe, expect, it } from "vitest";
import { ChangeSet, Text } from "@codemirror/state";
import { Binding, type Surface, type Transport } from "../src/sync/binding";
import { change, stringOf, textOf } from "../src/sync/text";
import { FakeBuffer, rng, transport, type Wire } from "./support/fake";

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

/** A transport that counts the edits in flight at once. */
function counted(t: Transport): { t: Transport; most: () => number } {
  let now = 0;
  let most = 0;
  return {
    most: () => most,
    t: {
      ...t,
      edit: async (body) => {
        now++;
        most = Math.max(most, now);
        try {
          return await t.edit(body);
        } finally {
          now--;
        }
      },
    },
  };
}

function client(buf: FakeBuffer, wire: Wire, clock: () => number = () => performance.now(), burstMs = 300) {
  const { t, most } = counted(transport(buf, "local", wire));
  let n = 0;
  const b = new Binding(t, { version: buf.version, text: buf.text, dirty: false }, { burstMs, backoff: () => 1, newId: () => `id-${n++}`, now: clock });
  const ed = new Editor(buf.text);
  b.attach(ed);
  return { b, ed, most };
}

describe("keystrokes to the service", () => {
  it("the first keystroke of a burst leaves at once, not after the burst window", async () => {
    const buf = new FakeBuffer("");
    // A burst window of a minute: the keystroke must not wait for it (nor for a flush).
    const { b, ed } = client(buf, { delay: () => 0 }, () => performance.now(), 60000);
    ed.type(b, 0, 0, "a");
    for (let i = 0; i < 500 && buf.text !== "a"; i++) await wait(10);
    expect(buf.text).toBe("a");
    for (let i = 0; i < 100 && b.version !== 2; i++) await wait(10);
    expect(b.version).toBe(2);
  });

  it("keystrokes typed while an edit is in flight leave together as the next one, in order", async () => {
    const buf = new FakeBuffer("");
    // The first edit's reply waits until released, so the next keystrokes surely type during it.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const raw = transport(buf, "local", { delay: () => 0 });
    const gated: Transport = {
      ...raw,
      edit: async (body) => {
        const r = await raw.edit(body);
        if (buf.requests.length === 1) await held;
        return r;
      },
    };
    const { t, most } = counted(gated);
    const b = new Binding(t, { version: 1, text: "", dirty: false }, { backoff: () => 1 });
    const ed = new Editor("");
    b.attach(ed);
    ed.type(b, 0, 0, "a");
    for (let i = 0; i < 500 && buf.requests.length === 0; i++) await wait(5);
    for (const [i, k] of ["b", "c", "😀"].entries()) ed.type(b, 1 + i, 1 + i, k);
    await wait(20);
    expect(buf.requests.length).toBe(1);
    release();
    await b.flush();
    expect(buf.text).toBe("abc😀");
    expect(buf.requests.map((r) => r.edits.map((e) => e.text).join(""))).toEqual(["a", "bc😀"]);
    expect(most()).toBe(1);
  });

  it("random typing with delays and lost replies: one edit in flight, nothing lost, order kept", async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const random = rng(seed);
      const buf = new FakeBuffer("x\r\n");
      const { b, ed, most } = client(buf, { delay: () => Math.floor(random() * 6), lose: () => random() < 0.2 });
      let typed = "x\r\n";
      for (let i = 0; i < 40; i++) {
        const piece = ["a", "é", "😀", "\n", "\r\n"][Math.floor(random() * 5)] ?? "a";
        ed.type(b, ed.doc.length, ed.doc.length, piece);
        typed += piece;
        if (random() < 0.5) await wait(Math.floor(random() * 8));
      }
      await b.flush();
      expect(buf.text).toBe(typed);
      expect(ed.text).toBe(typed);
      expect(most()).toBe(1);
      // A resent edit kept its changeId: the service applied each once.
      expect(new Set(buf.applied).size).toBe(buf.applied.length);
    }
  });

  it("a lost reply is resent with its changeId and burst; keystrokes typed meanwhile follow it", async () => {
    const buf = new FakeBuffer("");
    let lose = 2;
    const { b, ed } = client(buf, { delay: () => 2, lose: () => lose-- > 0 }, () => 0);
    ed.type(b, 0, 0, "a");
    for (let i = 0; i < 500 && buf.requests.length === 0; i++) await wait(1);
    ed.type(b, 1, 1, "b");
    ed.type(b, 2, 2, "c");
    await b.flush();
    expect(buf.text).toBe("abc");
    const first = buf.requests[0];
    expect(buf.requests.filter((r) => r.changeId === first?.changeId).length).toBe(3);
    expect(new Set(buf.applied).size).toBe(buf.applied.length);
    expect(new Set(buf.requests.map((r) => r.burst)).size).toBe(1);
    expect(buf.undoSteps).toBe(1);
  });
});

describe("bursts and undo", () => {
  it("a burst is one undo step; a keystroke after the window starts the next", async () => {
    const buf = new FakeBuffer("");
    let clock = 0;
    const { b, ed } = client(buf, { delay: () => 0 }, () => clock);
    for (const [i, k] of ["o", "n", "e"].entries()) {
      clock = i * 50;
      ed.type(b, i, i, k);
      await b.flush(); // each keystroke is its own edit
    }
    clock = 400;
    ed.type(b, 3, 3, " ");
    await b.flush();
    clock = 450;
    ed.type(b, 4, 4, "2");
    await b.flush();
    expect(buf.requests.length).toBe(5);
    const bursts = buf.requests.map((r) => r.burst);
    expect(bursts[0]).toBeDefined();
    expect(new Set(bursts.slice(0, 3)).size).toBe(1);
    expect(bursts[3]).toBe(bursts[4]);
    expect(bursts[3]).not.toBe(bursts[0]);
    expect(buf.undoSteps).toBe(2);
    await b.undo();
    expect(buf.text).toBe("one");
    expect(ed.text).toBe("one");
    await b.undo();
    expect(buf.text).toBe("");
    expect(ed.text).toBe("");
  });

  it("another author's edit inside a burst ends it", async () => {
    const buf = new FakeBuffer("");
    const clock = 0;
    const { b, ed } = client(buf, { delay: () => 0 }, () => clock);
    ed.type(b, 0, 0, "a");
    await b.flush();
    buf.edit("agent:claude", { expectedVersion: buf.version, changeId: "agent-1", edits: [{ start: 1, end: 1, text: "!" }] });
    b.remote(buf.version, "agent:claude", true);
    await b.flush();
    ed.type(b, 0, 0, "b");
    await b.flush();
    expect(buf.text).toBe("ba!");
    expect(buf.undoSteps).toBe(3);
    await b.undo();
    expect(buf.text).toBe("a!");
  });
});
