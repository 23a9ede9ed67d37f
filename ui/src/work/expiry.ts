//! When Agent grants expire: which have by now, the wait until the next one does, and the sentence that announces it.

/** What expiry needs of an Agent with access. */
export interface Expiring {
  session: string;
  label: string;
  expiresAt: string;
}

/** The grants of `agents` that have expired at `now` (ms since the epoch), oldest first. */
export function expiredAt<T extends Expiring>(agents: T[], now: number): T[] {
  return agents.filter((a) => Date.parse(a.expiresAt) <= now).sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt));
}

/** The longest wait a browser timer takes (about 24.8 days); a later expiry is waited for in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds from `now` until the next grant of `agents` expires (0 if one already has), or null when none will. */
export function untilNextExpiry(agents: Expiring[], now: number): number | null {
  const times = agents.map((a) => Date.parse(a.expiresAt)).filter((t) => Number.isFinite(t));
  if (times.length === 0) return null;
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.min(...times) - now));
}

/** The delay to give the browser timer for a wait: a margin past the expiry, never above
 *  `MAX_TIMER_MS` (a larger delay overflows and fires at once, which made a refresh loop). */
export function timerDelay(wait: number): number {
  return Math.min(wait + 100, MAX_TIMER_MS);
}

/** The announcement of expired grants, for a `role=status` region. */
export function expiryNote(expired: Expiring[]): string {
  const names = expired.map((a) => a.label || a.session);
  const first = expired[0];
  if (names.length === 1 && first) {
    return `The grant of ${names[0]} has expired at ${new Date(first.expiresAt).toLocaleTimeString()}: its credential no longer works. Connect it again to give it access.`;
  }
  return `The grants of ${names.join(", ")} have expired: their credentials no longer work. Connect them again to give them access.`;
}
