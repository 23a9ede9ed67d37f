//! The editor's status feed: the binding's latest status for the few elements that show it, a keystroke's own "sending…" held back while its answer is on its way.

import type { BindingStatus } from "../sync/binding";

/** How long an edit is unanswered before the status says "sending…" (decision 0419). */
export const SENDING_SHOWN_AFTER_MS = 300;

/** The binding's latest status, for the few elements that show it. */
export class StatusFeed {
  current: BindingStatus | null = null;
  private readonly listeners = new Set<(s: BindingStatus) => void>();
  set(s: BindingStatus): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }
  listen(l: (s: BindingStatus) => void): () => void {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }
}

/**
 * Calls `show` with each status worth drawing. An edit's "unsent" status (a keystroke that has
 * just left) is shown only if it still holds after `afterMs`: answered sooner (the usual case),
 * it is never drawn, and the keystroke costs one render of the status, in its answer's task,
 * instead of a second render queued before that answer (decision 0419). Offline and refusals show
 * at once; so does every status that is not "unsent". Returns the unsubscribe.
 */
export function listenShown(
  feed: StatusFeed,
  show: (s: BindingStatus | null) => void,
  afterMs: number = SENDING_SHOWN_AFTER_MS,
): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stop = feed.listen((s) => {
    if (s.unsent && !s.offline && !s.problem) {
      timer ??= setTimeout(() => {
        timer = null;
        show(feed.current);
      }, afterMs);
      return;
    }
    if (timer !== null) clearTimeout(timer);
    timer = null;
    show(s);
  });
  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    stop();
  };
}
