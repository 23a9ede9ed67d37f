//! The typed client of the public contract: `POST /api/v2/{op}` with relative URLs and no credential.

import { ApiError, LostReply } from "./errors";
import type { OpName, Ops, Whoami } from "./types";

interface Envelope<T> {
  ok: boolean;
  value?: T;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

async function parse<T>(res: Response): Promise<T> {
  let body: Envelope<T>;
  try {
    body = (await res.json()) as Envelope<T>;
  } catch {
    if (res.status >= 500) throw new LostReply(`the service answered ${res.status} without the envelope`);
    throw new ApiError("internal", `the service answered ${res.status} without the envelope`, res.status);
  }
  if (body.ok && body.value !== undefined) return body.value;
  const e = body.error ?? { code: "internal", message: "an envelope without a value or an error" };
  throw new ApiError(e.code, e.message, res.status, e.details ?? {});
}

/** Calls one operation; refusals throw [`ApiError`], no answer throws [`LostReply`]. */
export function call<K extends OpName>(op: K, req: Ops[K]["req"]): Promise<Ops[K]["res"]> {
  return post<Ops[K]["res"]>(op, req);
}

/** `call` for an operation typed outside [`Ops`] (its own panel's table, until the protocol publishes it). */
export async function post<T>(op: string, req: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/v2/${op}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(req),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (e) {
    throw new LostReply(`${op}: no answer (${String(e)})`);
  }
  return parse<T>(res);
}

/** Who this tab is: `local` or `paired` (with its folder); a bad credential throws `unauthorized`. */
export async function whoami(): Promise<Whoami> {
  let res: Response;
  try {
    res = await fetch("/status", { headers: { Accept: "application/json" }, cache: "no-store" });
  } catch (e) {
    throw new LostReply(`the service did not answer (${String(e)})`);
  }
  return parse<Whoami>(res);
}
