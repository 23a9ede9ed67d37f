//! The wire shapes the app uses, written from `protocol/operations/*.json` (tests/protocol.test.ts checks them).

import { CONSOLE_REQUIRED, type ConsoleOps } from "../console/ops";
import { WORK_REQUIRED, type WorkOps } from "../work/ops";
import { NOTEBOOK_REQUIRED, type NotebookOps } from "../notebook/ops";
import { CONVERSATION_REQUIRED, type ConversationOps } from "../conversation/ops";

export interface ProjectListing {
  id: string;
  name: string;
  path: string;
  available: boolean;
  reason?: string | null;
}

export interface ProjectRef {
  id: string;
  name: string;
  path: string;
}

export interface Entry {
  name: string;
  path: string;
  /** `file`, `directory` or `source`. */
  kind: string;
  bytes?: number | null;
  modified?: string | null;
}

export interface OpenReply {
  id: string;
  path: string;
  version: number;
  length: number;
  dirty: boolean;
  diskDigest?: string | null;
}

export interface AuthorOut {
  version: number;
  principal: string;
  time: string;
}

export interface ReadReply {
  version: number;
  text: string;
  length: number;
  dirty: boolean;
  path: string;
  authors: AuthorOut[];
  diskDigest?: string | null;
  /** The disk's digest (or `deleted`) when the file changed on disk under unsaved changes. */
  changedOnDisk?: string | null;
}

export interface EditSpec {
  start: number;
  end: number;
  text: string;
}

export interface VersionReply {
  version: number;
  length: number;
}

export interface SaveReply {
  version: number;
  diskDigest: string;
}

/** One version of a buffer as `document.changed` and `document.changes` carry it. */
export interface ChangeOut {
  version: number;
  baseVersion: number;
  /** `open`, `edit`, `undo`, `save` or `close`. */
  kind: string;
  author: string;
  time: string;
  changeId?: string | null;
  /** UTF-16 edits of the base version's text, ascending; null: read the text instead. */
  edits?: EditSpec[] | null;
}

export interface VersionOut {
  version: number;
  kind: string;
  author: string;
  time: string;
}

export interface UtfRange {
  start: number;
  end: number;
}

/** `observation.snapshot` (an `AnyValue` reply until the service publishes its schema). */
export interface Snapshot {
  cursor: string;
  projects?: ProjectListing[];
  project?: {
    id: string;
    name: string;
    path: string;
    available: boolean;
    documents?: { id: string; path: string; version: number; dirty: boolean }[];
  };
}

/** A resource version `{id, version}`. */
export interface ResourceRef {
  id: string;
  version: number;
}

export interface ColumnDecl {
  name: string;
  /** `string`, `integer`, `number`, `boolean`, `date` or `datetime`. */
  type: string;
  missing?: string[] | null;
}

export interface TableDecl {
  format: string;
  columns: ColumnDecl[];
  key?: { column: string; namespace: string } | null;
}

export interface ResourceView {
  id: string;
  version: number;
  path: string;
  kind: string;
  format: string;
  bytes: number;
  table?: TableDecl | null;
}

export interface SortSpec {
  column: string;
  descending?: boolean;
}

export interface FilterSpec {
  column: string;
  /** `eq|ne|lt|le|gt|ge|contains|missing`, or `in` (the key column, an array of keys). */
  op: string;
  value?: unknown;
}

export interface PageQuery {
  resource: ResourceRef;
  offset: number;
  limit: number;
  sort: SortSpec[];
  filter: FilterSpec[];
  columns?: string[] | null;
}

export interface PageRow {
  key?: string | null;
  cells: Record<string, unknown>;
}

export interface PageReply {
  query: PageQuery;
  total: number;
  namespace?: string | null;
  rows: PageRow[];
}

export interface PlotReply {
  points: { key?: string | null; x: number; y: number }[];
  sampling: { sampled: boolean; total: number; returned: number; method: string; step: number };
  dropped: number;
  namespace?: string | null;
}

export interface SelectionRead {
  scope: string;
  holder?: string | null;
  namespace: string;
  keys: string[];
  version: number;
  principal?: string | null;
}

export interface ObjectReadReply {
  schemaVersion: number;
  classes: string[];
  provenance: Record<string, unknown>;
  pointer: string;
  value: unknown;
  bytes: number;
}

/** Every operation the app calls: its request and its reply. */
export interface Ops extends WorkOps, ConsoleOps, NotebookOps, Omit<ConversationOps, "conversation.decide"> {
  "project.list": { req: Record<string, never>; res: { projects: ProjectListing[] } };
  "project.create": { req: { name: string }; res: ProjectRef };
  "project.open": { req: { path: string }; res: ProjectRef };
  "project.entries": {
    req: { projectId: string; path?: string | null; cursor?: string | null };
    res: { entries: Entry[]; next?: string | null };
  };
  "document.open": { req: { projectId: string; path: string; create?: boolean }; res: OpenReply };
  "document.read": {
    req: { projectId: string; documentId: string; range?: UtfRange | null; version?: number | null };
    res: ReadReply;
  };
  "document.edit": {
    req: { projectId: string; documentId: string; expectedVersion: number; changeId: string; edits: EditSpec[]; burst?: string };
    res: VersionReply;
  };
  "document.undo": {
    req: { projectId: string; documentId: string; expectedVersion: number; changeId: string };
    res: VersionReply;
  };
  "document.save": {
    req: { projectId: string; documentId: string; expectedVersion: number; changeId: string; baseDigest?: string | null };
    res: SaveReply;
  };
  "document.changes": {
    req: { projectId: string; documentId: string; since: number };
    res: { changes: ChangeOut[]; complete: boolean };
  };
  "document.history": {
    req: { projectId: string; documentId: string; before?: number | null; limit?: number | null };
    res: { versions: VersionOut[]; more: boolean };
  };
  "document.revision": {
    req: { projectId: string; documentId: string; version: number; range?: UtfRange | null };
    res: { version: number; text: string; length: number; path: string };
  };
  "observation.snapshot": { req: { projectId?: string | null }; res: Snapshot };
  "resource.list": { req: { projectId: string; cursor?: string | null }; res: { resources: (ResourceView & { versions: number })[]; next?: string | null } };
  "resource.register": {
    req: { projectId: string; changeId: string; path: string; kind: string; format: string; table?: TableDecl | null; media?: { format: string } | null };
    res: ResourceView;
  };
  "resource.read": {
    req: { projectId: string; resource: ResourceRef; offset?: number | null; length?: number | null };
    res: { data: string; offset: number; length: number; total: number };
  };
  "data.page": {
    req: { projectId: string; resource: ResourceRef; offset: number; limit: number; sort?: SortSpec[]; filter?: FilterSpec[]; columns?: string[] | null };
    res: PageReply;
  };
  "data.plot": { req: { projectId: string; resource: ResourceRef; x: string; y: string }; res: PlotReply };
  "selection.set": {
    req: { projectId: string; changeId: string; scope: string; viewId?: string | null; namespace: string; keys: string[] };
    res: { version: number };
  };
  "selection.read": { req: { projectId: string; scope: string; viewId?: string | null; namespace: string }; res: SelectionRead };
  "object.read": { req: { projectId: string; resource: ResourceRef; pointer?: string | null }; res: ObjectReadReply };
}

export type OpName = keyof Ops;

/** The request fields each operation requires, as the protocol states them. */
export const REQUIRED: { [K in OpName]: string[] } = {
  ...WORK_REQUIRED,
  ...CONSOLE_REQUIRED,
  ...NOTEBOOK_REQUIRED,
  ...CONVERSATION_REQUIRED,
  "project.list": [],
  "project.create": ["name"],
  "project.open": ["path"],
  "project.entries": ["projectId"],
  "document.open": ["projectId", "path"],
  "document.read": ["projectId", "documentId"],
  "document.edit": ["projectId", "documentId", "expectedVersion", "changeId", "edits"],
  "document.undo": ["projectId", "documentId", "expectedVersion", "changeId"],
  "document.save": ["projectId", "documentId", "expectedVersion", "changeId"],
  "document.changes": ["projectId", "documentId", "since"],
  "document.history": ["projectId", "documentId"],
  "document.revision": ["projectId", "documentId", "version"],
  "observation.snapshot": [],
  "resource.list": ["projectId"],
  "resource.register": ["projectId", "changeId", "path", "kind", "format"],
  "resource.read": ["projectId", "resource"],
  "data.page": ["projectId", "resource", "offset", "limit"],
  "data.plot": ["projectId", "resource", "x", "y"],
  "selection.set": ["projectId", "changeId", "scope", "namespace", "keys"],
  "selection.read": ["projectId", "scope", "namespace"],
  "object.read": ["projectId", "resource"],
};

/** Who this tab is, from `GET /status` as JSON (until the snapshot names the caller). */
export interface Whoami {
  principal: string;
  kind: "local" | "paired";
  /** `null`: every project; otherwise the one folder below the root a paired tab may reach. */
  folder: string | null;
  version: string;
}
