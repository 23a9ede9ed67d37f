//! Calling a conversation operation that carries a changeId: a lost reply is retried with the same body, a refusal is said in words (`unavailable` with its install command).

import { ApiError, isRetryable } from "../api/errors";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls `f` (whose body, changeId included, never changes) until it answers or refuses; after
 *  `attempts` lost replies the last failure is thrown, and the caller keeps the same changeId. */
export async function retrying<T>(f: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await f();
    } catch (e) {
      if (!isRetryable(e) || i + 1 >= attempts) throw e;
      await sleep(400 * 2 ** i);
    }
  }
}

/** What an `unavailable` refusal that names missing adapters asks the person to do. */
export interface Missing {
  missing: string[];
  install: string | null;
  message: string;
}

export function missingOf(e: unknown): Missing | null {
  if (!(e instanceof ApiError) || e.code !== "unavailable") return null;
  const m = e.details["missing"];
  if (!Array.isArray(m) || m.length === 0) return null;
  const install = e.details["install"];
  return { missing: m.map(String), install: typeof install === "string" ? install : null, message: e.message };
}

export const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
