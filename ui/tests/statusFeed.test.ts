//! The editor's status feed: a keystroke's own "sending…" is drawn only when its answer is late; every other status at once.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BindingStatus } from "../src/sync/binding";
import { listenShown, SENDING_SHOWN_AFTER_MS, StatusFeed } from "../src/panels/statusFeed";

const base: BindingStatus = { version: 1, dirty: false, unsent: false, offline: false, lastAuthor: null, problem: null, changedOnDisk: false };
const at = (change: Partial<BindingStatus>): BindingStatus => ({ ...base, ...change });

describe("listenShown", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("draws a keystroke answered in time once: its answer, never its sending", () => {
    const feed = new StatusFeed();
    const shown: (BindingStatus | null)[] = [];
    listenShown(feed, (s) => shown.push(s));
    feed.set(at({ unsent: true }));
    vi.advanceTimersByTime(SENDING_SHOWN_AFTER_MS - 1);
    feed.set(at({ version: 2, dirty: true }));
    vi.advanceTimersByTime(10 * SENDING_SHOWN_AFTER_MS);
    expect(shown).toEqual([at({ version: 2, dirty: true })]);
  });

  it("draws the sending of an edit whose answer is late, then its answer", () => {
    const feed = new StatusFeed();
    const shown: (BindingStatus | null)[] = [];
    listenShown(feed, (s) => shown.push(s));
    feed.set(at({ unsent: true }));
    feed.set(at({ unsent: true, dirty: true }));
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(SENDING_SHOWN_AFTER_MS);
    expect(shown).toEqual([at({ unsent: true, dirty: true })]);
    feed.set(at({ version: 2, dirty: true }));
    expect(shown.at(-1)).toEqual(at({ version: 2, dirty: true }));
    expect(shown).toHaveLength(2);
  });

  it("draws offline and refusals at once, unsent or not", () => {
    const feed = new StatusFeed();
    const shown: (BindingStatus | null)[] = [];
    listenShown(feed, (s) => shown.push(s));
    feed.set(at({ unsent: true, offline: true }));
    feed.set(at({ unsent: true, problem: "refused" }));
    expect(shown).toEqual([at({ unsent: true, offline: true }), at({ unsent: true, problem: "refused" })]);
  });

  it("draws nothing after the unsubscribe, not even a held sending", () => {
    const feed = new StatusFeed();
    const shown: (BindingStatus | null)[] = [];
    const stop = listenShown(feed, (s) => shown.push(s));
    feed.set(at({ unsent: true }));
    stop();
    vi.advanceTimersByTime(10 * SENDING_SHOWN_AFTER_MS);
    feed.set(at({ version: 3 }));
    expect(shown).toEqual([]);
  });
});
