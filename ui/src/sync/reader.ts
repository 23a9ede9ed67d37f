//! Reads one whole version of a buffer: one read, or pages of at most 16k UTF-16 units pinned to one version, restarting on `stale`.

import { ApiError } from "../api/errors";
import type { AuthorOut, ReadReply, UtfRange } from "../api/types";

/** The page size in UTF-16 units (the service caps a reply at 64 KiB). */
export const PAGE = 16384;

export type ReadFn = (range: UtfRange | null, version: number | null) => Promise<ReadReply>;

export interface WholeText {
  version: number;
  text: string;
  dirty: boolean;
  authors: AuthorOut[];
  /** Set when the file changed on disk under unsaved changes. */
  changedOnDisk?: boolean;
}

async function page(read: ReadFn, start: number, end: number, version: number | null): Promise<ReadReply> {
  // A page end inside a surrogate pair is refused as `invalid`: one unit less keeps the pair whole.
  try {
    return await read({ start, end }, version);
  } catch (e) {
    if (e instanceof ApiError && e.code === "invalid" && end - start > 1) return read({ start, end: end - 1 }, version);
    throw e;
  }
}

/** The current text: one read when it fits a reply, else pinned pages; a buffer that moves
 * mid-read is read again. */
export async function readWhole(read: ReadFn, attempts = 5): Promise<WholeText> {
  for (let attempt = 0; ; attempt++) {
    try {
      const whole = await tryWhole(read);
      if (whole) return whole;
      const probe = await read({ start: 0, end: 0 }, null);
      let text = "";
      while (text.length < probe.length) {
        const next = await page(read, text.length, Math.min(probe.length, text.length + PAGE), probe.version);
        if (next.text.length === 0) throw new ApiError("internal", "an empty page before the end", 500);
        text += next.text;
      }
      return { version: probe.version, text, dirty: probe.dirty, authors: probe.authors, changedOnDisk: !!probe.changedOnDisk };
    } catch (e) {
      if (e instanceof ApiError && e.code === "stale" && attempt + 1 < attempts) continue;
      throw e;
    }
  }
}

async function tryWhole(read: ReadFn): Promise<WholeText | null> {
  try {
    const r = await read(null, null);
    return { version: r.version, text: r.text, dirty: r.dirty, authors: r.authors, changedOnDisk: !!r.changedOnDisk };
  } catch (e) {
    if (e instanceof ApiError && e.code === "limit") return null;
    throw e;
  }
}
