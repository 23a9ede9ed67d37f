//! The wire shapes the app uses, written from `protocol/operations/*.json` (tests/protocol.test.ts checks them).

import { WORK_REQUIRED, type WorkOps } from "../work/ops";

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

/** Every operation the app calls: its request and its reply. */
export interface Ops extends WorkOps {
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
    req: { projectId: string; documentId: string; expectedVersion: number; changeId: string; edits: EditSpec[] };
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
  "observation.snapshot": { req: { projectId?: string | null }; res: Snapshot };
}

export type OpName = keyof Ops;

/** The request fields each operation requires, as the protocol states them. */
export const REQUIRED: { [K in OpName]: string[] } = {
  ...WORK_REQUIRED,
  "project.list": [],
  "project.create": ["name"],
  "project.open": ["path"],
  "project.entries": ["projectId"],
  "document.open": ["projectId", "path"],
  "document.read": ["projectId", "documentId"],
  "document.edit": ["projectId", "documentId", "expectedVersion", "changeId", "edits"],
  "document.undo": ["projectId", "documentId", "expectedVersion", "changeId"],
  "document.save": ["projectId", "documentId", "expectedVersion", "changeId"],
  "observation.snapshot": [],
};

/** Who this tab is, from `GET /status` as JSON (until the snapshot names the caller). */
export interface Whoami {
  principal: string;
  kind: "local" | "paired";
  /** `null`: every project; otherwise the one folder below the root a paired tab may reach. */
  folder: string | null;
  version: string;
}
