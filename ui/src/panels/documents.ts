//! The tab's open buffers: one binding per document, shared by every editor view of it, fed by the event stream.

import { call, callSocket } from "../api/client";
import type { EditSpec } from "../api/types";
import { Binding, type Transport } from "../sync/binding";

export interface OpenDoc {
  id: string;
  path: string;
  projectId: string;
  binding: Binding;
}

const open = new Map<string, Promise<OpenDoc>>();
const byId = new Map<string, OpenDoc>();

function transport(projectId: string, documentId: string): Transport {
  const ids = { projectId, documentId };
  return {
    edit: (b) => call("document.edit", { ...ids, ...b }),
    undo: (b) => call("document.undo", { ...ids, ...b }),
    read: (range, version) => call("document.read", { ...ids, range, version }),
    save: (b) => call("document.save", { ...ids, ...b }),
    changes: (since) => call("document.changes", { ...ids, since }),
  };
}

/** Opens `path` in the project (once per tab) and binds it. */
export function openDocument(projectId: string, path: string): Promise<OpenDoc> {
  const key = `${projectId}\u0000${path}`;
  let p = open.get(key);
  if (!p) {
    p = (async () => {
      // The editor's edits go over the calls socket: open it while the buffer opens.
      callSocket()?.ready();
      const reply = await call("document.open", { projectId, path });
      const binding = await Binding.open(transport(projectId, reply.id));
      const doc = { id: reply.id, path: reply.path, projectId, binding };
      byId.set(reply.id, doc);
      return doc;
    })();
    p.catch(() => open.delete(key));
    open.set(key, p);
  }
  return p;
}

/** A `document.changed` event for this tab's buffers. */
export function documentChanged(data: Record<string, unknown>): void {
  const id = typeof data["documentId"] === "string" ? data["documentId"] : null;
  const doc = id ? byId.get(id) : undefined;
  if (!doc || typeof data["version"] !== "number") return;
  const author = typeof data["author"] === "string" ? data["author"] : null;
  const baseVersion = typeof data["baseVersion"] === "number" ? data["baseVersion"] : undefined;
  const edits = Array.isArray(data["edits"]) ? (data["edits"] as EditSpec[]) : null;
  const kind = typeof data["kind"] === "string" ? data["kind"] : undefined;
  doc.binding.remote(data["version"], author, data["dirty"] === true, { kind, baseVersion, edits });
}

/** After a gap: every open buffer is read again. */
export async function resyncAll(): Promise<void> {
  await Promise.all([...byId.values()].map((d) => d.binding.resync()));
}
