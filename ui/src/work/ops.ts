//! The wire shapes of the work panels (runs, Agent access, media, contexts), written from `protocol/operations/*.json`.

export interface ResourceRef {
  id: string;
  version: number;
}

export interface ExitView {
  endedAt: string | null;
  exitCode: number | null;
  signal: number | null;
  spawnError: string | null;
}

export interface RunView {
  operationId: string;
  action: string;
  acceptedAt: string;
  updatedAt: string;
  submitter: string;
  delivery: "not-sent" | "sent" | "uncertain";
  deliveryNote: string | null;
  execution: "running" | "exited" | "unknown" | null;
  exit: ExitView | null;
  logs: { stdout: { bytes: number; truncated: boolean }; stderr: { bytes: number; truncated: boolean } };
  plan: {
    script: { kind: "buffer"; documentId: string; path: string; version: number } | { kind: "disk"; path: string };
    artifacts: { path: string; kind: string; format: string }[];
    outputDirectory: string;
  };
  stop: { state: string; requestedBy: string; at: string } | null;
  repairOf: string | null;
  lostWithHost: boolean;
}

export interface OutputPage {
  bytes: string;
  offset: number;
  nextOffset: number;
  size: number;
  truncated: boolean;
}

export interface ExportReply {
  folder: string;
  partial: boolean;
  unsaved: string | null;
  files: { path: string; exported: boolean; matchesInventory: boolean }[];
  leftOut: { path: string; reason: string | null }[];
}

export interface CheckReply {
  complete: boolean;
  partial: boolean;
  completion: { complete: boolean; present: boolean; valid: boolean };
  files: { path: string; matches: boolean; actual: { bytes: number } | null; declared: { bytes: number } | null }[];
}

export interface RequirementDecl {
  package: string;
  source: string;
  minimumVersion?: string | null;
}

export interface ProbeReply {
  satisfied: boolean;
  reason: string | null;
  probe: string;
  r: { version: string | null; platform: string | null };
  packages: { package: string; state: string; version: string | null; meetsMinimum: boolean | null }[];
}

export interface PrepareReply {
  satisfied: boolean;
  attempted: string[];
  interrupted: boolean;
  exitCode: number | null;
  log: string;
  check: ProbeReply | null;
}

export interface McpEntry {
  name: string;
  command: string;
  args: string[];
}

export interface Instructions {
  session: string;
  projectName: string;
  granted: boolean;
  grantCommand: string;
  mcp: McpEntry;
}

export interface ConnectReply {
  connected: boolean;
  session: string;
  client: { command: string; args: string[]; exitCode: number | null; output: string; timedOut: boolean };
}

export interface AgentView {
  session: string;
  label: string;
  principal: string;
  methods: string[];
  expiresAt: string;
  createdAt: string;
  latestCall: { method: string; outcome: string; time: string; code: string | null } | null;
}

export interface ActivityView {
  seq: number;
  time: string;
  principal: string;
  method: string;
  outcome: string;
  code: string | null;
}

export interface BindingOut {
  bindingId: string;
  client: string;
  label: string;
  session: string;
  openedAt: string;
  closedAt?: string | null;
}

export interface MediaFacts {
  format: string;
  units: string;
  width?: number | null;
  height?: number | null;
  pages?: { width: number; height: number }[] | null;
}

export interface ListedResource {
  id: string;
  version: number;
  path: string;
  kind: string;
  bytes: number;
  media?: { format: string } | null;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ContextReply {
  contextId: string;
  createdBy: string;
  time: string;
  media?: { resource: ResourceRef; page: number; units: string; rect: Rect; format: string } | null;
}

type Req<T> = { projectId: string } & T;
type RunReq = Req<{ operationId: string }>;

/** The operations of the work panels: request and reply. */
export interface WorkOps {
  "action.list": { req: Req<object>; res: { runs: RunView[] } };
  "action.observe": { req: RunReq; res: RunView };
  "action.cancel": { req: RunReq; res: RunView };
  "action.retry": { req: RunReq; res: RunView };
  "action.submit": {
    req: Req<{ operationId: string; action: string; actionVersion: string; input: { script: { kind: "buffer"; documentId: string; version: number } } }>;
    res: RunView;
  };
  "action.output": { req: Req<{ operationId: string; stream: string; offset?: number | null; maxBytes?: number | null }>; res: OutputPage };
  "action.export": { req: Req<{ operationId: string; exportId: string; folder?: string | null; unsaved?: string | null }>; res: ExportReply };
  "artifact.check": { req: RunReq; res: CheckReply };
  "requirements.check": { req: Req<{ requirements: RequirementDecl[] }>; res: ProbeReply };
  "requirements.prepare": { req: Req<{ changeId: string; requirements: RequirementDecl[] }>; res: PrepareReply };
  "session.instructions": { req: Req<{ session?: string | null }>; res: Instructions };
  "session.connect": { req: Req<{ agent: string }>; res: ConnectReply };
  "session.revoke": { req: Req<{ session: string }>; res: { revoked: boolean; session: string } };
  "binding.list": { req: Req<object>; res: { bindings: BindingOut[] } };
  "binding.activity": { req: Req<{ bindingId: string; cursor?: string | null; limit?: number | null }>; res: { records: ActivityView[]; nextCursor: string | null } };
  "resource.list": { req: Req<{ cursor?: string | null }>; res: { resources: ListedResource[]; next?: string | null } };
  "resource.register": { req: Req<{ changeId: string; path: string; kind: string; format: string; media?: { format: string } | null }>; res: { id: string; version: number } };
  "resource.read": { req: Req<{ resource: ResourceRef; offset?: number | null; length?: number | null }>; res: { data: string; offset: number; length: number; total: number } };
  "media.describe": { req: Req<{ resource: ResourceRef }>; res: MediaFacts };
  "context.create": { req: Req<{ changeId: string; media: { resource: ResourceRef; page: number; units: string; rect: Rect } }>; res: ContextReply };
  "context.read": { req: Req<{ contextId: string }>; res: ContextReply };
}

/** The request fields each of these operations requires, as the protocol states them. */
export const WORK_REQUIRED: { [K in keyof WorkOps]: string[] } = {
  "action.list": ["projectId"],
  "action.observe": ["projectId", "operationId"],
  "action.cancel": ["projectId", "operationId"],
  "action.retry": ["projectId", "operationId"],
  "action.submit": ["projectId", "operationId", "action", "actionVersion", "input"],
  "action.output": ["projectId", "operationId", "stream"],
  "action.export": ["projectId", "operationId", "exportId"],
  "artifact.check": ["projectId", "operationId"],
  "requirements.check": ["projectId", "requirements"],
  "requirements.prepare": ["projectId", "changeId", "requirements"],
  "session.instructions": ["projectId"],
  "session.connect": ["projectId", "agent"],
  "session.revoke": ["projectId", "session"],
  "binding.list": ["projectId"],
  "binding.activity": ["projectId", "bindingId"],
  "resource.list": ["projectId"],
  "resource.register": ["projectId", "changeId", "path", "kind", "format"],
  "resource.read": ["projectId", "resource"],
  "media.describe": ["projectId", "resource"],
  "context.create": ["projectId", "changeId"],
  "context.read": ["projectId", "contextId"],
};

/** Operations a paired tab is never given (the protocol's callers omit `paired`). */
export const NOT_FOR_PAIRED: string[] = ["session.instructions", "session.connect", "session.revoke", "binding.list", "binding.activity", "console.run", "console.stop", "kernel.stop", "conversation.decide"];
