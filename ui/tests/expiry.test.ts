//! Grant expiry in the Agent panel: which grants have expired, the timer's wait until the next one, and the announcement.

import { describe, expect, it } from "vitest";
import { expiredAt, expiryNote, MAX_TIMER_MS, timerDelay, untilNextExpiry } from "../src/work/expiry";

const at = (iso: string) => Date.parse(iso);
const a = { session: "claude-code", label: "Claude Code", expiresAt: "2026-12-01T20:00:00Z" };
const b = { session: "codex", label: "", expiresAt: "2026-12-01T20:00:30Z" };

describe("grant expiry", () => {
  it("finds the grants expired by now, oldest first, and none before", () => {
    expect(expiredAt([b, a], at("2026-12-01T19:59:59Z"))).toEqual([]);
    expect(expiredAt([b, a], at("2026-12-01T20:00:00Z"))).toEqual([a]);
    expect(expiredAt([b, a], at("2026-12-01T20:01:00Z"))).toEqual([a, b]);
  });

  it("waits until the earliest expiry, at once for a past one, in bounded steps for a far one", () => {
    expect(untilNextExpiry([b, a], at("2026-12-01T19:59:00Z"))).toBe(60_000);
    expect(untilNextExpiry([a], at("2026-12-01T20:05:00Z"))).toBe(0);
    expect(untilNextExpiry([], 0)).toBeNull();
    expect(untilNextExpiry([{ ...a, expiresAt: "2099-01-01T00:00:00Z" }], at("2026-12-01T19:59:00Z"))).toBe(MAX_TIMER_MS);
    expect(untilNextExpiry([{ ...a, expiresAt: "never" }], 0)).toBeNull();
  });

  it("says whose grant expired and what to do, by label or else session", () => {
    const one = expiryNote([a]);
    expect(one).toMatch(/^The grant of Claude Code has expired at .+: its credential no longer works\. Connect it again to give it access\.$/);
    expect(expiryNote([a, b])).toBe("The grants of Claude Code, codex have expired: their credentials no longer work. Connect them again to give them access.");
  });
  it("never gives the browser timer a delay past its maximum (which would fire at once)", () => {
    const far = { ...a, expiresAt: "2027-06-01T00:00:00Z" };
    const wait = untilNextExpiry([far], at("2026-12-01T19:00:00Z"));
    expect(wait).toBe(MAX_TIMER_MS);
    expect(timerDelay(wait ?? 0)).toBe(MAX_TIMER_MS);
    expect(timerDelay(1000)).toBe(1100);
  });
});
