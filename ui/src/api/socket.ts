//! The calls socket: operation calls over one WebSocket (`/api/v2/calls`), for the calls a person feels the latency of.
//!
//! A `fetch` round trip costs milliseconds of the browser's own machinery; a message on an open
//! socket a fraction of one (decision 0418). The service runs each message through exactly the
//! checks of `POST /api/v2/{op}` and answers `{id, status, envelope}`. A call made while the socket
//! is not open goes by `fetch` (the caller decides; see `client.ts`) and the socket is opened for
//! the next one. When the socket closes, every unanswered call fails with `LostReply`: its outcome
//! is unknown, so the caller resends the same body and changeId, which the service answers once.

import { ApiError, LostReply } from "./errors";

/** What the socket needs of a WebSocket (tests give a fake). */
export interface Wire {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

const OPEN = 1;

interface Pending {
  op: string;
  resolve: (value: unknown) => void;
  reject: (e: unknown) => void;
}

/** The `/api/v2` envelope: a value, or an error. */
export interface Envelope<T> {
  ok: boolean;
  value?: T;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

interface Answer {
  id: number | null;
  status: number;
  envelope: Envelope<unknown>;
}

/** The value of an envelope, or its refusal as an [`ApiError`]. */
export function fromEnvelope<T>(body: Envelope<unknown>, status: number): T {
  if (body.ok && body.value !== undefined) return body.value as T;
  const e = body.error ?? { code: "internal", message: "an envelope without a value or an error" };
  throw new ApiError(e.code, e.message, status, e.details ?? {});
}

export class CallSocket {
  private wire: Wire | null = null;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  /** Not before this time (ms) is a closed socket opened again. */
  private retryAt = 0;
  private failures = 0;

  constructor(
    private readonly open: () => Wire,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** True when a call made now goes over the socket; otherwise starts opening it for later calls. */
  ready(): boolean {
    if (this.wire?.readyState === OPEN) return true;
    if (this.wire === null && this.now() >= this.retryAt) this.connect();
    return false;
  }

  /** Sends one call on the open socket (check `ready()` first). */
  call<T>(op: string, body: unknown): Promise<T> {
    const wire = this.wire;
    if (!wire || wire.readyState !== OPEN) return Promise.reject(new LostReply(`${op}: the calls socket is not open`));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { op, resolve: resolve as (v: unknown) => void, reject });
      try {
        wire.send(JSON.stringify({ id, op, body }));
      } catch (e) {
        this.pending.delete(id);
        reject(new LostReply(`${op}: not sent (${String(e)})`));
      }
    });
  }

  /** Closes the socket; unanswered calls fail as lost. */
  close(): void {
    this.wire?.close();
    this.closed();
  }

  private connect(): void {
    let wire: Wire;
    try {
      wire = this.open();
    } catch {
      this.backoff();
      return;
    }
    this.wire = wire;
    wire.onopen = () => {
      this.failures = 0;
    };
    wire.onmessage = (ev) => this.answer(ev.data);
    wire.onclose = () => {
      if (this.wire === wire) this.closed();
    };
    wire.onerror = () => undefined;
  }

  private answer(data: unknown): void {
    let a: Answer;
    try {
      a = JSON.parse(String(data)) as Answer;
    } catch {
      return;
    }
    if (a.id === null) return;
    const p = this.pending.get(a.id);
    if (!p) return;
    this.pending.delete(a.id);
    try {
      p.resolve(fromEnvelope(a.envelope, a.status));
    } catch (e) {
      p.reject(e);
    }
  }

  private closed(): void {
    this.wire = null;
    this.backoff();
    const lost = [...this.pending.values()];
    this.pending.clear();
    for (const p of lost) p.reject(new LostReply(`${p.op}: the calls socket closed before the answer`));
  }

  private backoff(): void {
    this.failures += 1;
    this.retryAt = this.now() + Math.min(5000, 100 * 2 ** Math.min(this.failures, 6));
  }
}
