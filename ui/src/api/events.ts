//! The tab's one event stream: `GET /api/v2/events` from a snapshot's cursor, resumed by id, and the `gap` procedure.

import { call } from "./client";

export type EventHandler = (kind: string, data: Record<string, unknown>) => void;

/** The kinds the app listens to. */
const KINDS = ["document.changed", "resource.changed", "project.changed", "run.changed", "selection.changed", "activity.changed", "run.output", "grant.changed", "requirements.progress", "console.changed", "kernel.changed", "conversation.changed"];

/**
 * One stream per tab. `start` takes `observation.snapshot` (its cursor is taken before the
 * facts) and opens the stream there; the browser resumes with `Last-Event-ID` on its own. A
 * `gap` closes the stream, calls `onGap` (re-read what moved), takes a new snapshot and reopens.
 */
export class LiveEvents {
  private source: EventSource | null = null;
  private cursor: string | null = null;
  private stopped = false;
  private retryMs = 500;

  constructor(
    private readonly projectId: string,
    private readonly onEvent: EventHandler,
    private readonly onGap: () => Promise<void>,
    private readonly onState: (live: boolean) => void,
  ) {}

  async start(): Promise<void> {
    const snap = await call("observation.snapshot", { projectId: this.projectId });
    this.cursor = snap.cursor;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = null;
  }

  private open(): void {
    if (this.stopped) return;
    const q = new URLSearchParams({ projectId: this.projectId });
    if (this.cursor) q.set("cursor", this.cursor);
    const es = new EventSource(`/api/v2/events?${q.toString()}`);
    this.source = es;
    es.onopen = () => {
      this.retryMs = 500;
      this.onState(true);
    };
    for (const kind of KINDS) {
      es.addEventListener(kind, (ev) => {
        const m = ev as MessageEvent<string>;
        if (m.lastEventId) this.cursor = m.lastEventId;
        try {
          this.onEvent(kind, JSON.parse(m.data) as Record<string, unknown>);
        } catch {
          // A frame that is not JSON is not ours to act on.
        }
      });
    }
    es.addEventListener("gap", () => {
      es.close();
      void this.recover();
    });
    es.onerror = () => {
      this.onState(false);
      // The browser retries by itself while the stream is CONNECTING; a CLOSED stream (an
      // error status, e.g. after a restart) is reopened here from the last cursor.
      if (es.readyState === EventSource.CLOSED && this.source === es) {
        setTimeout(() => this.open(), this.retryMs);
        this.retryMs = Math.min(5000, this.retryMs * 2);
      }
    };
  }

  /** The gap procedure: snapshot, re-read what moved, reopen from the snapshot's cursor. */
  private async recover(): Promise<void> {
    this.source = null;
    for (;;) {
      if (this.stopped) return;
      try {
        const snap = await call("observation.snapshot", { projectId: this.projectId });
        this.cursor = snap.cursor;
        await this.onGap();
        this.open();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, this.retryMs));
        this.retryMs = Math.min(5000, this.retryMs * 2);
      }
    }
  }
}
