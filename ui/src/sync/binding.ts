//! The DOM-free buffer binding: one editor's text kept equal to a shared buffer by conditional edits, one in flight.
//!
//! `base` is the service's text at `confirmed`; the editor shows base + inflight + pending. A
//! keystroke leaves at once as one `document.edit` (never while an IME composes); keystrokes typed
//! while an edit is in flight gather in `pending` and leave as the next edit the moment it is
//! answered, so one edit is in flight. Each edit names its `burst` (~300 ms from a burst's first
//! keystroke), which the service folds into one shared-undo step (decision 0413). A foreign change R comes with its edits (`document.changed`, or
//! `document.changes` after a missed event, a gap or a reconnect): R is shown as `R.map(L)` and L
//! becomes `L.map(R, true)`. Only when the edits are not carried (over the size bound, an open) is
//! the version read whole and diffed against `base`.
//! `stale` rebases and resends under a new changeId; a lost reply resends the same body and
//! changeId; a hard refusal reverts the local change by its inverse. Every step that talks to the
//! service runs in one queue, so events that arrive during an edit wait for its reply.

import { ChangeSet, Text } from "@codemirror/state";
import { ApiError, isRetryable } from "../api/errors";
import type { AuthorOut, ChangeOut, EditSpec, ReadReply, SaveReply, UtfRange, VersionReply } from "../api/types";
import { readWhole } from "./reader";
import { changeSetOf, diff, editsOf, stringOf, textOf } from "./text";

export interface EditBody {
  expectedVersion: number;
  changeId: string;
  edits: EditSpec[];
  /** The typing burst the edit belongs to: the service keeps a burst as one undo step. */
  burst?: string;
}

/** The service calls of one buffer (project and document ids already bound). */
export interface Transport {
  edit(body: EditBody): Promise<VersionReply>;
  undo(body: { expectedVersion: number; changeId: string }): Promise<VersionReply>;
  read(range: UtfRange | null, version: number | null): Promise<ReadReply>;
  save(body: { expectedVersion: number; changeId: string; baseDigest?: string | null }): Promise<SaveReply>;
  /** `document.changes`: the changes after `since`, with their edits (absent: read and diff). */
  changes?(since: number): Promise<{ changes: ChangeOut[]; complete: boolean }>;
}

/** What a `document.changed` carries beyond version, author and dirty. */
export interface RemoteChange {
  kind?: string;
  baseVersion?: number;
  edits?: EditSpec[] | null;
}

/** What the binding shows: the editor applies foreign changes; the status line reads the rest. */
export interface Surface {
  /** Apply `changes` (over the editor's current text) outside the local undo history. */
  applyRemote(changes: ChangeSet, author: string | null): void;
  /** True while an input method composes (nothing is sent then). */
  composing(): boolean;
  /** Something the person should know changed (status, dirty, last author, a refusal). */
  changed(status: BindingStatus): void;
}

export interface BindingStatus {
  version: number;
  dirty: boolean;
  /** Local changes not yet acknowledged. */
  unsent: boolean;
  /** True while a call waits for an answer that did not come (the service is unreachable). */
  offline: boolean;
  lastAuthor: string | null;
  /** The latest refusal, in words. */
  problem: string | null;
  /** The file changed on disk while this buffer had unsaved changes (saving then asks before overwriting). */
  changedOnDisk: boolean;
}

export type SaveOutcome = { saved: true; version: number } | { saved: false; conflict: string; diskDigest: string | null };

export interface BindingOptions {
  /** How long a typing burst (one undo step) lasts from its first keystroke. */
  burstMs?: number;
  /** The clock bursts are timed by (ms). */
  now?: () => number;
  newId?: () => string;
  /** Waits between resends of a lost call: attempt -> ms. */
  backoff?: (attempt: number) => number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Binding {
  private base: Text;
  private confirmed: number;
  private inflight: ChangeSet | null = null;
  private pending: ChangeSet | null = null;
  /** The newest version an event announced. */
  private announced: number;
  private queue: Promise<unknown> = Promise.resolve();
  /** No step is queued or running (`run` then starts a step at once). */
  private idle = true;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The current typing burst and when its first keystroke came. */
  private burst: { id: string; since: number } | null = null;
  /** The burst of `pending`'s first keystroke (its edit names it). */
  private pendingBurst: string | null = null;
  /** True while a send step is queued or running (it also takes what is typed meanwhile). */
  private sending = false;
  private readonly burstMs: number;
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly backoff: (attempt: number) => number;
  private status: BindingStatus;
  private surface: Surface | null = null;
  /** Every changeId this binding sent, with how many times (tests read it). */
  readonly sent = new Map<string, number>();
  /** How foreign changes arrived: applied from their edits, or by reading the text (tests read it). */
  readonly arrivals = { edits: 0, reads: 0 };

  constructor(
    private readonly transport: Transport,
    initial: { version: number; text: string; dirty: boolean; authors?: AuthorOut[]; changedOnDisk?: boolean },
    options: BindingOptions = {},
  ) {
    this.base = textOf(initial.text);
    this.confirmed = initial.version;
    this.announced = initial.version;
    this.burstMs = options.burstMs ?? 300;
    this.now = options.now ?? (() => performance.now());
    this.newId = options.newId ?? (() => crypto.randomUUID());
    this.backoff = options.backoff ?? ((n) => Math.min(2000, 100 * 2 ** n));
    this.status = {
      version: initial.version,
      dirty: initial.dirty,
      unsent: false,
      offline: false,
      lastAuthor: newest(initial.authors ?? []),
      problem: null,
      changedOnDisk: initial.changedOnDisk ?? false,
    };
  }

  /** Opens a binding on the buffer's current text. */
  static async open(transport: Transport, options: BindingOptions = {}): Promise<Binding> {
    const whole = await readWhole((r, v) => transport.read(r, v));
    return new Binding(transport, whole, options);
  }

  attach(surface: Surface | null): void {
    this.surface = surface;
    if (surface) surface.changed(this.status);
  }

  /** The text the editor shows: base + inflight + pending. */
  text(): string {
    let t = this.base;
    if (this.inflight) t = this.inflight.apply(t);
    if (this.pending) t = this.pending.apply(t);
    return stringOf(t);
  }

  get version(): number {
    return this.confirmed;
  }

  get current(): BindingStatus {
    return this.status;
  }

  /** A local change over the editor's current text (one editor transaction). */
  local(changes: ChangeSet): void {
    if (changes.empty) return;
    const now = this.now();
    if (this.burst === null || now - this.burst.since >= this.burstMs) this.burst = { id: this.newId(), since: now };
    if (this.pending === null) this.pendingBurst = this.burst.id;
    this.pending = this.pending ? this.pending.compose(changes) : changes;
    // The edit's send step is queued before anything the status change schedules (a render), so
    // the keystroke leaves first (decision 0418).
    this.kick();
    this.update({ unsent: true });
  }

  /** A `document.changed` event (`change`: its kind, base version and edits, when carried). */
  remote(version: number, author: string | null, dirty: boolean, change: RemoteChange = {}): void {
    if (version >= this.confirmed) this.update({ dirty });
    if (change.kind === "disk-changed") this.update({ changedOnDisk: true });
    if (change.kind === "reload" || change.kind === "save") this.update({ changedOnDisk: false });
    if (version <= this.announced) return;
    this.announced = version;
    if (author) this.update({ lastAuthor: author });
    const edits = change.edits;
    const base = change.baseVersion;
    void this.run(async () => {
      // Applied from the event when it follows what we have; otherwise caught up.
      if (edits && base === this.confirmed && version === base + 1 && this.inflight === null) {
        this.foreign(edits, version, author);
        this.settled();
        return;
      }
      await this.catchUp(false, author);
    });
  }

  /** After a gap or a reconnect: read the buffer again and rebase onto it. */
  resync(): Promise<void> {
    return this.run(() => this.catchUp(true, null));
  }

  /** Sends what is pending now and waits until nothing is in flight. */
  async flush(): Promise<void> {
    this.disarm();
    await this.run(() => this.send(true));
  }

  /** `document.undo`: reverts the newest change of any author; answers whose it was. */
  async undo(): Promise<string | null> {
    await this.flush();
    return this.run(async () => {
      const whose = this.status.lastAuthor;
      for (let tries = 0; tries < 3; tries++) {
        try {
          const r = await this.retrying(() => this.transport.undo({ expectedVersion: this.confirmed, changeId: this.newId() }));
          this.announced = Math.max(this.announced, r.version);
          await this.catchUp(true, null);
          return whose;
        } catch (e) {
          if (e instanceof ApiError && e.code === "stale") {
            await this.catchUp(true, null);
            continue;
          }
          this.refused(e);
          return null;
        }
      }
      return null;
    });
  }

  /** `document.save` of what the editor shows; `baseDigest` overwrites a changed disk by choice. */
  async save(baseDigest: string | null = null): Promise<SaveOutcome> {
    await this.flush();
    return this.run(async (): Promise<SaveOutcome> => {
      for (;;) {
        try {
          const r = await this.retrying(() =>
            this.transport.save({ expectedVersion: this.confirmed, changeId: this.newId(), baseDigest }),
          );
          this.update({ dirty: false, problem: null, changedOnDisk: false });
          return { saved: true, version: r.version };
        } catch (e) {
          if (e instanceof ApiError && e.code === "stale") {
            await this.catchUp(true, null);
            continue;
          }
          if (e instanceof ApiError && e.code === "conflict") {
            return { saved: false, conflict: e.message, diskDigest: diskDigestOf(e) };
          }
          this.refused(e);
          throw e;
        }
      }
    });
  }

  // --- The queue's steps.

  /** Runs `step` after every step queued before it; at once when none is queued or running, so
   * an idle buffer's keystroke leaves within the keystroke's own task (decision 0418). */
  private run<T>(step: () => Promise<T>): Promise<T> {
    let next: Promise<T>;
    if (this.idle) {
      this.idle = false;
      try {
        next = step();
      } catch (e) {
        next = Promise.reject(e);
      }
    } else {
      next = this.queue.then(step, step);
    }
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queue = settled;
    void settled.then(() => {
      if (this.queue === settled) this.idle = true;
    });
    return next;
  }

  /** Sends what is pending as soon as the queue allows (after a composition ends). */
  private kick(): void {
    if (this.surface?.composing()) return this.arm(100);
    if (this.sending) return;
    this.sending = true;
    void this.run(async () => {
      try {
        await this.send(false);
      } finally {
        this.sending = false;
      }
    });
  }

  private arm(ms: number): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends the pending changes as one edit, then what gathered meanwhile, until none is left
   * (`force`: even while an IME composes); on `stale` catches up, rebases and sends again. */
  private async send(force: boolean): Promise<void> {
    while (this.pending) {
      if (!force && this.surface?.composing()) return this.arm(100);
      const changes = this.pending;
      const burst = this.pendingBurst;
      this.pending = null;
      this.pendingBurst = null;
      this.inflight = changes;
      const body: EditBody = { expectedVersion: this.confirmed, changeId: this.newId(), edits: editsOf(changes) };
      if (burst !== null) body.burst = burst;
      try {
        const r = await this.retrying(() => {
          this.sent.set(body.changeId, (this.sent.get(body.changeId) ?? 0) + 1);
          return this.transport.edit(body);
        });
        this.base = changes.apply(this.base);
        this.inflight = null;
        this.confirmed = r.version;
        this.update({ version: r.version, dirty: true, unsent: this.pending !== null, problem: null });
        if (this.base.length !== r.length) {
          this.announced = Math.max(this.announced, r.version);
          await this.catchUp(true, null);
        }
      } catch (e) {
        const local = this.pending ? changes.compose(this.pending) : changes;
        this.inflight = null;
        if (e instanceof ApiError && e.code === "stale") {
          this.pending = local;
          this.pendingBurst = burst;
          await this.catchUp(true, null);
          continue;
        }
        this.pending = null;
        this.pendingBurst = null;
        this.surface?.applyRemote(local.invert(this.base), null);
        this.update({ unsent: false });
        this.refused(e);
      }
    }
  }

  /** Rebases onto foreign change `edits` (base: `confirmed`), making `version` confirmed. */
  private foreign(edits: EditSpec[], version: number, author: string | null): void {
    const r = changeSetOf(edits, this.base.length);
    const l = this.pending;
    const shown = l ? r.map(l) : r;
    this.pending = l ? l.map(r, true) : null;
    this.base = r.apply(this.base);
    this.confirmed = version;
    this.arrivals.edits++;
    if (!shown.empty) this.surface?.applyRemote(shown, author);
  }

  private settled(): void {
    this.announced = Math.max(this.announced, this.confirmed);
    this.update({ version: this.confirmed, dirty: this.status.dirty || this.pending !== null });
    if (this.pending) this.kick();
  }

  /** Catches up by `document.changes` (their edits, in order); `false` if a change carries none. */
  private async replay(): Promise<boolean> {
    const changes = this.transport.changes;
    if (!changes) return false;
    for (;;) {
      const since = this.confirmed;
      const r = await this.retrying(() => changes(since));
      for (const c of r.changes) {
        if (c.version <= this.confirmed) continue;
        if (!c.edits || c.baseVersion !== this.confirmed) return false;
        this.foreign(c.edits, c.version, c.author);
        this.update({ lastAuthor: c.author });
      }
      if (r.complete || this.confirmed === since) return true;
    }
  }

  /** Catches up with the service and rebases the local changes (`force`: even with no newer
   * event): by the changes' edits when it can, else by reading the text whole. */
  private async catchUp(force: boolean, author: string | null): Promise<void> {
    if (!force && this.announced <= this.confirmed) return;
    try {
      if (await this.replay()) return this.settled();
    } catch {
      // A refused catch-up (the journal no longer has `since`, say) falls back to a whole read.
    }
    this.arrivals.reads++;
    let whole;
    try {
      whole = await this.retrying(() => readWhole((r, v) => this.transport.read(r, v)));
    } catch (e) {
      this.refused(e);
      return;
    }
    const moved = whole.version !== this.confirmed || stringOf(this.base) !== whole.text;
    if (moved) {
      const r = diff(stringOf(this.base), whole.text);
      const l = this.pending;
      const shown = l ? r.map(l) : r;
      this.pending = l ? l.map(r, true) : null;
      this.base = textOf(whole.text);
      this.confirmed = whole.version;
      if (!shown.empty) this.surface?.applyRemote(shown, author ?? newest(whole.authors));
    }
    this.announced = Math.max(this.announced, whole.version);
    this.update({
      version: whole.version,
      dirty: whole.dirty || this.pending !== null,
      lastAuthor: newest(whole.authors) ?? this.status.lastAuthor,
    });
    if (this.pending) this.kick();
  }

  /** Calls `f` until it answers or refuses; a lost reply is retried unchanged. */
  private async retrying<T>(f: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await f();
        if (this.status.offline) this.update({ offline: false });
        return r;
      } catch (e) {
        if (!isRetryable(e)) throw e;
        if (!this.status.offline) this.update({ offline: true });
        await sleep(this.backoff(attempt));
      }
    }
  }

  private refused(e: unknown): void {
    const problem = e instanceof Error ? e.message : String(e);
    this.update({ problem });
  }

  private update(change: Partial<BindingStatus>): void {
    const next = { ...this.status, ...change };
    const keys = Object.keys(next) as (keyof BindingStatus)[];
    if (keys.every((k) => next[k] === this.status[k])) return;
    this.status = next;
    this.surface?.changed(this.status);
  }
}

/** The author of the newest transaction `document.read` lists (its order is not relied on). */
export function newest(authors: AuthorOut[]): string | null {
  let best: AuthorOut | null = null;
  for (const a of authors) if (!best || a.version > best.version) best = a;
  return best?.principal ?? null;
}

/** The disk's digest named by a save `conflict` (its details, else the message's "disk now"). */
export function diskDigestOf(e: ApiError): string | null {
  const d = e.details["diskDigest"];
  if (typeof d === "string") return d;
  const m = /disk now ([0-9a-zA-Z:]+)/.exec(e.message);
  return m && m[1] !== "none" ? (m[1] ?? null) : null;
}
