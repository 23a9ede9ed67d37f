//! A buffer's past for the History panel: the versions list, a past version's text (paged), and the edit that restores it.

import { call } from "../api/client";
import { ApiError } from "../api/errors";
import type { EditSpec, VersionOut } from "../api/types";
import { PAGE } from "../sync/reader";
import { diff, editsOf } from "../sync/text";

/** Versions that changed the text (a save or close names a version another entry made). */
export async function versions(projectId: string, documentId: string): Promise<VersionOut[]> {
  const r = await call("document.history", { projectId, documentId });
  return r.versions.filter((v) => v.kind === "open" || v.kind === "edit" || v.kind === "undo");
}

/** The whole text of `version`: one read when it fits a reply, else pages of 16k UTF-16 units. */
export async function revisionText(projectId: string, documentId: string, version: number): Promise<string> {
  const ids = { projectId, documentId, version };
  try {
    return (await call("document.revision", ids)).text;
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "limit")) throw e;
  }
  const { length } = await call("document.revision", { ...ids, range: { start: 0, end: 0 } });
  let text = "";
  while (text.length < length) {
    let end = Math.min(length, text.length + PAGE);
    let r;
    try {
      r = await call("document.revision", { ...ids, range: { start: text.length, end } });
    } catch (e) {
      // A page end inside a surrogate pair is refused: one unit less keeps the pair whole.
      if (!(e instanceof ApiError && e.code === "invalid")) throw e;
      end -= 1;
      r = await call("document.revision", { ...ids, range: { start: text.length, end } });
    }
    if (r.text.length === 0) throw new ApiError("internal", "an empty page before the end", 500);
    text += r.text;
  }
  return text;
}

/** The one replacement that turns `now` into `past` (an ordinary edit of `now`'s version). */
export function restoreEdits(now: string, past: string): EditSpec[] {
  return editsOf(diff(now, past));
}

/** Who made a version, in words ("you" for this computer's user). */
export function authorName(principal: string): string {
  if (principal === "local") return "you (local)";
  if (principal.startsWith("agent:")) return `Agent ${principal.slice(6)}`;
  return principal;
}
