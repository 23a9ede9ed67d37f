//! The wire shapes of the Notebook panel (the `kernel` owner), written from `protocol/operations/kernel.*.json`.

export type Language = "r" | "python";
export type Stream = "stdout" | "stderr" | "message" | "warning" | "error";
export type Outcome = "done" | "error" | "interrupted" | "not-run" | "unknown";

export interface OutputChunk {
  stream: Stream;
  text: string;
}

export interface PlotRecord {
  page: number;
  digest: string;
  bytes: number;
  /** The earlier cell's plot this one redrew, as `<cellId>#<index>`. */
  replaces: string | null;
}

export interface CellEnd {
  outcome: Outcome;
  by: string | null;
  atMs: number;
  reason: string | null;
}

export interface CellView {
  cellId: string;
  no: number;
  language: Language;
  sessionId: string | null;
  by: string;
  changeId: string;
  purpose: string | null;
  code: string;
  state: "waiting" | "running" | "ended";
  queuedAtMs: number;
  startedAtMs: number | null;
  program: string | null;
  version: string | null;
  output: OutputChunk[];
  cut: boolean;
  omittedBytes: number;
  plots: PlotRecord[];
  notes: string[];
  defined: string[];
  removed: string[] | null;
  end: CellEnd | null;
}

export interface Variable {
  name: string;
  type: string;
  size: string;
  summary: string;
  cellId: string | null;
}

export interface SessionView {
  sessionId: string;
  language: Language;
  program: string;
  version: string | null;
  pid: number | null;
  state: "starting" | "live" | "ended";
  startedAtMs: number;
  runners: string[];
  interpreter: string | null;
  variables: Variable[];
  variablesOmitted: number;
  end: { reason: "stopped" | "exited" | "start-failed" | "rho-closed"; by: string | null; atMs: number; detail: string | null } | null;
}

export interface KernelRead {
  sessions: SessionView[];
  cells: CellView[];
  next: number | null;
  interpreters: { language: Language; program: string }[];
}

export interface InspectReply {
  answer: "value" | "none" | "busy" | "missing" | "timeout" | "failed" | "ended";
  reason: string | null;
  value: unknown;
  afterCellId: string | null;
}

type P<T> = { projectId: string } & T;

export interface NotebookOps {
  "kernel.read": { req: P<{ after?: number; cellId?: string | null; limit?: number | null }>; res: KernelRead };
  "kernel.run": {
    req: P<{ language: Language; code: string; changeId: string; purpose?: string | null; interpreter?: string | null; waitMs?: number | null }>;
    res: CellView;
  };
  "kernel.inspect": {
    req: P<{ language: Language; path: string; offset?: number; rows?: number | null; sort?: { column: string; descending?: boolean } | null }>;
    res: InspectReply;
  };
  "kernel.plot": { req: P<{ cellId: string; index: number }>; res: { cellId: string; index: number; digest: string; png: string } };
  "kernel.interrupt": { req: P<{ cellId: string }>; res: CellView };
  "kernel.stop": { req: P<{ sessionId: string }>; res: SessionView };
}

export const NOTEBOOK_REQUIRED: { [K in keyof NotebookOps]: string[] } = {
  "kernel.read": ["projectId"],
  "kernel.run": ["projectId", "language", "code", "changeId"],
  "kernel.inspect": ["projectId", "language", "path"],
  "kernel.plot": ["projectId", "cellId", "index"],
  "kernel.interrupt": ["projectId", "cellId"],
  "kernel.stop": ["projectId", "sessionId"],
};
