//! The buffer binding against an in-memory buffer: concurrent writers converge; emoji, CRLF, stale, lost replies, refusals and undo.

import { describe, expect, it } from "vitest";
import { ChangeSet, Text } from "@codemirror/state";
import { ApiError } from "../src/api/errors";
import { Binding, type BindingStatus, type Surface } from "../src/sync/binding";
import { change, diff, stringOf, textOf } from "../src/sync/text";
import { FakeBuffer, events, rng, transport } from "./support/fake";

/** An editor without a DOM: its text, and the foreign changes it was shown. */
class FakeEditor implements Surface {
  doc: Text;
  remotes = 0;
  status: BindingStatus | null = null;
  composingNow = false;
  constructor(text: string) {
    this.doc = textOf(text);
  }
  applyRemote(changes: ChangeSet): void {
    this.doc = changes.apply(this.doc);
    this.remotes++;
  }
  composing(): boolean {
    return this.composingNow;
  }
  changed(s: BindingStatus): void {
    this.status = s;
  }
  /** The person types: one transaction, handed to the binding. */
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
const PIECES = ["a", "bc", "😀", "\r\n", "\n", "é", "👩‍🔬", "x\r", "  "];

/** A position that does not split a surrogate pair. */
function safe(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

function client(buf: FakeBuffer, name: string, random: () => number, lose = 0) {
  const t = transport(buf, name, { delay: () => Math.floor(random() * 4), lose: () => random() < lose });
  const b = new Binding(t, { version: buf.version, text: buf.text, dirty: false }, {
    burstMs: 2,
    backoff: () => 1,
    newId: (() => {
      let n = 0;
      return () => `${name}-${n++}`;
    })(),
  });
  const ed = new FakeEditor(buf.text);
  b.attach(ed);
  events(buf, () => Math.floor(random() * 5), (v, a) => b.remote(v, a, true));
  return { b, ed };
}

async function settle(buf: FakeBuffer, clients: { b: Binding }[]): Promise<void> {
  for (let round = 0; round < 50; round++) {
    for (const c of clients) await c.b.flush();
    await wait(25);
    for (const c of clients) await c.b.resync();
    if (clients.every((c) => c.b.text() === buf.text && c.b.version === buf.version)) return;
  }
}

async function typeRandomly(ed: FakeEditor, b: Binding, random: () => number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const len = ed.doc.length;
    const from = safe(ed.text, Math.floor(random() * (len + 1)));
    const del = random() < 0.3 ? Math.floor(random() * 3) : 0;
    const to = safe(ed.text, Math.min(len, from + del));
    const piece = PIECES[Math.floor(random() * PIECES.length)] ?? "a";
    ed.type(b, from, Math.max(from, to), piece);
    await wait(Math.floor(random() * 6));
  }
}

describe("two concurrent writers", () => {
  for (let seed = 1; seed <= 20; seed++) {
    it(`converge with random delays (seed ${seed})`, async () => {
      const random = rng(seed);
      const buf = new FakeBuffer("x <- 1\r\nplot(x) # 😀\n");
      const one = client(buf, "local", random, seed % 4 === 0 ? 0.2 : 0);
      const two = client(buf, "agent:claude", random);
      await Promise.all([typeRandomly(one.ed, one.b, random, 25), typeRandomly(two.ed, two.b, random, 25)]);
      await settle(buf, [one, two]);
      expect(one.ed.text).toBe(buf.text);
      expect(two.ed.text).toBe(buf.text);
      expect(one.b.text()).toBe(buf.text);
      // Every changeId the service applied was applied once, however often it was sent.
      expect(new Set(buf.applied).size).toBe(buf.applied.length);
      expect(buf.text.length).toBeGreaterThan(20);
    }, 20000);
  }
});

describe("the binding's paths", () => {
  it("keeps CRLF and emoji offsets exact in UTF-16 units", async () => {
    const buf = new FakeBuffer("a\r\nb😀c");
    const { b, ed } = client(buf, "local", rng(7));
    ed.type(b, 6, 6, "!"); // after the emoji (two units), before c
    await b.flush();
    expect(buf.text).toBe("a\r\nb😀!c");
    ed.type(b, 1, 3, "\n");
    await b.flush();
    expect(buf.text).toBe("a\nb😀!c");
  });

  it("the diff never splits a surrogate pair", () => {
    // Same high surrogate, different low one: the replacement covers the whole pair.
    const c = diff("a😀b", "a😁b");
    const parts: [number, number][] = [];
    c.iterChanges((fa, ta) => parts.push([fa, ta]));
    expect(parts).toEqual([[1, 3]]);
    expect(stringOf(c.apply(textOf("a😀b")))).toBe("a😁b");
  });

  it("a pure insertion is placed at the start of what it repeats", () => {
    const c = diff("# Fits\nx", "# Agent\n# Fits\nx");
    const parts: [number, number, string][] = [];
    c.iterChanges((fa, ta, _fb, _tb, ins) => parts.push([fa, ta, ins.toString()]));
    expect(parts).toEqual([[0, 0, "# Agent\n"]]);
    expect(stringOf(diff("ab😀", "ab😀c😀").apply(textOf("ab😀")))).toBe("ab😀c😀");
    const d = diff("# Agent\n# Fits\nx", "# Fits\nx");
    const cut: [number, number][] = [];
    d.iterChanges((fa, ta) => cut.push([fa, ta]));
    expect(cut).toEqual([[0, 8]]);
  });

  it("stale: a foreign edit first, then ours is rebased and sent under a new changeId", async () => {
    const buf = new FakeBuffer("hello world");
    const { b, ed } = client(buf, "local", () => 0);
    ed.type(b, 11, 11, "!");
    // The Agent edits before our burst leaves; our edit goes out against the old version.
    buf.edit("agent:x", { expectedVersion: 1, changeId: "agent-1", edits: [{ start: 0, end: 5, text: "howdy" }] });
    await b.flush();
    await settle(buf, [{ b }]);
    expect(buf.text).toBe("howdy world!");
    expect(ed.text).toBe("howdy world!");
    expect([...b.sent.keys()].length).toBe(2);
    expect([...b.sent.values()]).toEqual([1, 1]);
  });

  it("lost reply: the same body and changeId are resent and applied once", async () => {
    const buf = new FakeBuffer("abc");
    let lose = 1;
    const t = transport(buf, "local", { delay: () => 0, lose: () => lose-- > 0 });
    const b = new Binding(t, { version: 1, text: "abc", dirty: false }, { burstMs: 1, backoff: () => 1, newId: () => "only" });
    const ed = new FakeEditor("abc");
    b.attach(ed);
    ed.type(b, 3, 3, "d");
    await b.flush();
    expect(buf.text).toBe("abcd");
    expect(b.sent.get("only")).toBe(2);
    expect(buf.applied).toEqual(["only"]);
    expect(b.version).toBe(2);
  });

  it("a hard refusal reverts the local change by its inverse and says why", async () => {
    const buf = new FakeBuffer("abc");
    const t = transport(buf, "local", { delay: () => 0 });
    const refusing = { ...t, edit: () => Promise.reject(new ApiError("limit", "the buffer is too large", 413)) };
    const b = new Binding(refusing, { version: 1, text: "abc", dirty: false }, { burstMs: 1 });
    const ed = new FakeEditor("abc");
    b.attach(ed);
    ed.type(b, 1, 2, "XYZ");
    await b.flush();
    expect(ed.text).toBe("abc");
    expect(b.text()).toBe("abc");
    expect(ed.status?.problem).toContain("too large");
  });

  it("nothing is sent while an input method composes", async () => {
    const buf = new FakeBuffer("");
    const { b, ed } = client(buf, "local", () => 0);
    ed.composingNow = true;
    ed.type(b, 0, 0, "に");
    await wait(30);
    expect(buf.text).toBe("");
    ed.composingNow = false;
    await wait(150);
    expect(buf.text).toBe("に");
  });

  it("undo reverts the newest change of any author and names it", async () => {
    const buf = new FakeBuffer("one");
    const { b, ed } = client(buf, "local", () => 0);
    ed.type(b, 3, 3, " two");
    await b.flush();
    buf.edit("agent:claude", { expectedVersion: buf.version, changeId: "a1", edits: [{ start: 0, end: 0, text: ">" }] });
    b.remote(buf.version, "agent:claude", true);
    await settle(buf, [{ b }]);
    expect(ed.text).toBe(">one two");
    const whose = await b.undo();
    expect(whose).toBe("agent:claude");
    expect(ed.text).toBe("one two");
    expect(buf.text).toBe("one two");
  });

  it("a save conflict names the disk's digest from the refusal", async () => {
    const buf = new FakeBuffer("x");
    const t = transport(buf, "local", { delay: () => 0 });
    const digest = "ab".repeat(32);
    const conflicting = {
      ...t,
      save: () =>
        Promise.reject(
          new ApiError("conflict", `the file changed on disk since it was opened or last saved (buffer base 00, disk now ${digest}); pass baseDigest`, 409),
        ),
    };
    const b = new Binding(conflicting, { version: 1, text: "x", dirty: true }, { burstMs: 1 });
    const out = await b.save();
    expect(out).toEqual({ saved: false, conflict: expect.stringContaining("changed on disk"), diskDigest: digest });
  });

  it("a file changed on disk under unsaved changes is marked until a save or a reload", async () => {
    const buf = new FakeBuffer("x");
    const t = transport(buf, "local", { delay: () => 0 });
    const b = new Binding(t, { version: buf.version, text: "x", dirty: true, changedOnDisk: true }, { burstMs: 1 });
    const ed = new FakeEditor("x");
    b.attach(ed);
    expect(b.current.changedOnDisk).toBe(true);
    b.remote(buf.version, "agent:conversation-1", false, { kind: "reload" });
    expect(b.current.changedOnDisk).toBe(false);
    b.remote(buf.version, "agent:conversation-1", true, { kind: "disk-changed", edits: [] });
    expect(b.current.changedOnDisk).toBe(true);
    await b.save();
    expect(b.current.changedOnDisk).toBe(false);
  });
});

describe("authors", () => {
  it("the newest author is the highest version, whatever the list's order", async () => {
    const { newest } = await import("../src/sync/binding");
    const at = (version: number, principal: string) => ({ version, principal, time: "" });
    expect(newest([at(3, "local"), at(5, "agent:claude"), at(4, "local")])).toBe("agent:claude");
    expect(newest([])).toBeNull();
  });
});
