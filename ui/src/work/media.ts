//! A media file's resource (found by path, or registered on the person's choice) and its exact version's bytes.

import { call } from "../api/client";
import type { ListedResource, ResourceRef } from "./ops";

const FORMATS: Record<string, string> = { png: "png", jpg: "jpeg", jpeg: "jpeg", svg: "svg", pdf: "pdf" };

/** The media format a path names by its extension (`png`, `jpeg`, `svg`, `pdf`), or `null`. */
export function mediaFormat(path: string): string | null {
  const ext = path.split(".").pop()?.toLowerCase() ?? "";
  return FORMATS[ext] ?? null;
}

/** The latest registered version of `path`, or `null` when it is not a resource yet. */
export async function findResource(projectId: string, path: string): Promise<ListedResource | null> {
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const r: { resources: ListedResource[]; next?: string | null } = await call("resource.list", { projectId, cursor });
    const hit = r.resources.find((x) => x.path === path);
    if (hit) return hit;
    if (!r.next) return null;
    cursor = r.next;
  }
  return null;
}

/** Registers `path` as media of `format` (the person asked for it). */
export async function registerMedia(projectId: string, path: string, format: string): Promise<ResourceRef> {
  const r = await call("resource.register", {
    projectId,
    changeId: `media-${crypto.randomUUID()}`,
    path,
    kind: "figure",
    format,
    media: { format },
  });
  return { id: r.id, version: r.version };
}

/** Where the browser reads one exact version's bytes: a plain GET with its type, ETag and Range support. */
export function bytesUrl(projectId: string, resource: ResourceRef): string {
  return `/api/v2/projects/${encodeURIComponent(projectId)}/resources/${encodeURIComponent(resource.id)}/${resource.version}`;
}
