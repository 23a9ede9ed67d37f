//! The first render's requests, started at once: the remembered project's file list and open buffers are
//! asked for in parallel with who-am-I and the project list, instead of after the panels mount.

import { call } from "../api/client";
import type { Entry } from "../api/types";
import { openDocument } from "./documents";

type Page = { entries: Entry[]; next?: string | null };

const pages = new Map<string, Promise<Page>>();
const key = (projectId: string, path: string | null) => `${projectId}\u0000${path ?? ""}`;

/** Starts the first entries page of `projectId` and opens `files` (each failure is only dropped:
 * the panels ask again and show it). */
export function prefetch(projectId: string, files: string[]): void {
  const p = call("project.entries", { projectId });
  p.catch(() => pages.delete(key(projectId, null)));
  pages.set(key(projectId, null), p);
  for (const f of files) openDocument(projectId, f).catch(() => undefined);
}

/** The prefetched first page of a folder, once; `null` if none was started. */
export function takeFirstPage(projectId: string, path: string | null): Promise<Page> | null {
  const k = key(projectId, path);
  const p = pages.get(k) ?? null;
  pages.delete(k);
  return p;
}
