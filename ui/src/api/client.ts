//! The typed client of the public contract: `POST /api/v2/{op}` with relative URLs and no credential.

import { ApiError, LostReply } from "./errors";
import { CallSocket, fromEnvelope, type Envelope, type Wire } from "./socket";
import type { OpName, Ops, Whoami } from "./types";

/** The calls that go over the calls socket when it is open: a keystroke's edit and what the
 * editor's binding sends around it (decision 0418). Everything else goes by `fetch`. */
const SOCKET_OPS = new Set(["document.edit", "document.undo", "document.changes"]);

let sock: CallSocket | null = null;

/** This tab's calls socket (opened on first use, relative to the page's own address). */
export function callSocket(): CallSocket | null {
  if (sock === null && typeof WebSocket !== "undefined" && typeof location !== "undefined") {
    const url = new URL("/api/v2/calls", location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    // A WebSocket is a Wire; its handler types name DOM events where the Wire names their data.
    sock = new CallSocket(() => new WebSocket(url.href) as unknown as Wire);
  }
  return sock;
}

async function parse<T>(res: Response): Promise<T> {
  let body: Envelope<T>;
  try {
    body = (await res.json()) as Envelope<T>;
  } catch {
    if (res.status >= 500) throw new LostReply(`the service answered ${res.status} without the envelope`);
    throw new ApiError("internal", `the service answered ${res.status} without the envelope`, res.status);
  }
  return fromEnvelope<T>(body, res.status);
}

/** Calls one operation; refusals throw [`ApiError`], no answer throws [`LostReply`]. */
export function call<K extends OpName>(op: K, req: Ops[K]["req"]): Promise<Ops[K]["res"]> {
  return post<Ops[K]["res"]>(op, req);
}

/** `call` for an operation typed outside [`Ops`] (its own panel's table, until the protocol publishes it). */
export async function post<T>(op: string, req: unknown): Promise<T> {
  if (SOCKET_OPS.has(op)) {
    const s = callSocket();
    if (s?.ready()) return s.call<T>(op, req);
  }
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
