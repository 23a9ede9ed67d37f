//! An in-memory shared buffer with the service's rules (conditional edits, changeId identity, surrogate checks, undo, one undo step per burst) and delayed, ordered events.

import { ApiError, LostReply } from "../../src/api/errors";
import type { ChangeOut, EditSpec, ReadReply, UtfRange, VersionReply } from "../../src/api/types";
import type { EditBody, Transport } from "../../src/sync/binding";

/** A seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

function splits(text: string, at: number): boolean {
  return at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at));
}

type Listener = (version: number, author: string, change: ChangeOut) => void;

/** The one replacement between `a` and `b` (common prefix and suffix), as service edits. */
function replacement(a: string, b: string): EditSpec[] {
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p < n && a[p] === b[p]) p++;
  if (p > 0 && isLow(a.charCodeAt(p)) && isHigh(a.charCodeAt(p - 1))) p--;
  let s = 0;
  while (s < n - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  if (s > 0 && isLow(a.charCodeAt(a.length - s)) && isHigh(a.charCodeAt(a.length - s - 1))) s--;
  return [{ start: p, end: a.length - s, text: b.slice(p, b.length - s) }];
}

export class FakeBuffer {
  text: string;
  version = 1;
  readonly identities = new Map<string, VersionReply>();
  readonly applied: string[] = [];
  /** Every change with its edits, as `document.changes` serves them. */
  readonly log: ChangeOut[] = [];
  /** Undo steps: the text before, and the burst, author and newest version of the step. */
  private readonly undo: { before: string; burst?: string; author: string; version: number }[] = [];
  /** Every request `edit` received, in order (tests read the bursts and how many were in flight). */
  readonly requests: EditBody[] = [];
  private readonly listeners: Listener[] = [];

  constructor(text: string) {
    this.text = text;
  }

  subscribe(l: Listener): void {
    this.listeners.push(l);
  }

  /** Undo steps left (a burst is one). */
  get undoSteps(): number {
    return this.undo.length;
  }

  edit(author: string, body: EditBody): VersionReply {
    this.requests.push(body);
    const known = this.identities.get(body.changeId);
    if (known) return known;
    if (body.expectedVersion !== this.version) {
      throw new ApiError("stale", "the buffer moved on", 409, { currentVersion: this.version });
    }
    let last = -1;
    for (const e of body.edits) {
      if (e.start < last || e.start > e.end || e.end > this.text.length) throw new ApiError("invalid", "bad range", 400);
      if (splits(this.text, e.start) || splits(this.text, e.end)) throw new ApiError("invalid", "splits a surrogate pair", 400);
      last = e.end;
    }
    const before = this.text;
    let out = "";
    let at = 0;
    for (const e of body.edits) {
      out += this.text.slice(at, e.start) + e.text;
      at = e.end;
    }
    this.text = out + this.text.slice(at);
    // The service's rule (decision 0413): the same burst, author and no change between folds.
    const top = this.undo[this.undo.length - 1];
    const folds = top !== undefined && body.burst !== undefined && top.burst === body.burst && top.author === author && top.version === this.version;
    if (folds) top.version = this.version + 1;
    else this.undo.push({ before, burst: body.burst, author, version: this.version + 1 });
    return this.commit(author, body.changeId, "edit", body.edits.map((e) => ({ ...e })));
  }

  undoNewest(author: string, expectedVersion: number, changeId: string): VersionReply {
    const known = this.identities.get(changeId);
    if (known) return known;
    if (expectedVersion !== this.version) throw new ApiError("stale", "moved", 409, { currentVersion: this.version });
    const step = this.undo.pop();
    if (!step) throw new ApiError("conflict", "nothing to undo", 409);
    const edits = replacement(this.text, step.before);
    this.text = step.before;
    return this.commit(author, changeId, "undo", edits);
  }

  read(range: UtfRange | null, version: number | null): ReadReply {
    if (version !== null && version !== this.version) throw new ApiError("stale", "moved", 409, { currentVersion: this.version });
    const { start, end } = range ?? { start: 0, end: this.text.length };
    if (start > end || end > this.text.length || splits(this.text, start) || splits(this.text, end)) {
      throw new ApiError("invalid", "the range is out of bounds, reversed, or splits a surrogate pair", 400);
    }
    return {
      version: this.version,
      text: this.text.slice(start, end),
      length: this.text.length,
      dirty: true,
      path: "a.R",
      authors: [],
    };
  }

  /** `document.changes {since}`: every change after `since`, at most `page` of them a reply. */
  changes(since: number, page = 3): { changes: ChangeOut[]; complete: boolean } {
    const after = this.log.filter((c) => c.version > since);
    return { changes: after.slice(0, page), complete: after.length <= page };
  }

  private commit(author: string, changeId: string, kind: string, edits: EditSpec[]): VersionReply {
    this.version += 1;
    const reply = { version: this.version, length: this.text.length };
    this.identities.set(changeId, reply);
    this.applied.push(changeId);
    const change = { version: this.version, baseVersion: this.version - 1, kind, author, time: "", changeId, edits };
    this.log.push(change);
    for (const l of this.listeners) l(this.version, author, change);
    return reply;
  }
}

/** How one client reaches the buffer: random delays each way, optional lost replies. */
export interface Wire {
  delay: () => number;
  /** True: the call is applied but its reply is lost. */
  lose?: () => boolean;
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function transport(buf: FakeBuffer, author: string, wire: Wire): Transport {
  const over = async <T>(f: () => T): Promise<T> => {
    await wait(wire.delay());
    const r = f();
    await wait(wire.delay());
    if (wire.lose?.()) throw new LostReply("reply lost");
    return r;
  };
  return {
    edit: (body) => over(() => buf.edit(author, body)),
    undo: (body) => over(() => buf.undoNewest(author, body.expectedVersion, body.changeId)),
    read: (range, version) => over(() => buf.read(range, version)),
    save: (body) => over(() => ({ version: buf.version, diskDigest: `sha:${body.expectedVersion}` })),
  };
}

/** A transport that also serves `document.changes` (the service's catch-up read). */
export function liveTransport(buf: FakeBuffer, author: string, wire: Wire): Transport {
  const t = transport(buf, author, wire);
  return {
    ...t,
    changes: async (since) => {
      await wait(wire.delay());
      const r = buf.changes(since);
      await wait(wire.delay());
      if (wire.lose?.()) throw new LostReply("reply lost");
      return r;
    },
  };
}

/** Delivers the buffer's events to `to` in order, each after a random delay. */
export function events(buf: FakeBuffer, delay: () => number, to: Listener): void {
  let chain = Promise.resolve();
  buf.subscribe((v, a, c) => {
    chain = chain.then(() => wait(delay())).then(() => to(v, a, c));
  });
}
