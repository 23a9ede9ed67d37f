//! The Console's wire shapes (`console.run`, `console.stop`, `console.list`, `console.output`), written from `protocol/operations/console.*.json`.

export interface CommandView {
  commandId: string;
  changeId: string;
  command: string;
  /** Project-relative; `""` is the project folder. */
  cwd: string;
  by: string;
  acceptedAt: string;
  state: "starting" | "running" | "continuing" | "exited" | "unknown";
  pid: number | null;
  startedAt: string | null;
  endedAt: string | null;
  exitCode: number | null;
  signal: number | null;
  stoppedBy: string | null;
  stopRequestedAt: string | null;
  stdoutBytes: number | null;
  stderrBytes: number | null;
  omittedBytes: number | null;
  note: string | null;
}

export interface ChunkView {
  stream: "stdout" | "stderr" | "cut";
  bytes?: string | null;
  omittedBytes?: number | null;
}

export interface ConsolePage {
  commandId: string;
  offset: number;
  nextOffset: number;
  size: number;
  complete: boolean;
  chunks: ChunkView[];
}

type Req<T> = { projectId: string } & T;

export interface ConsoleOps {
  "console.run": { req: Req<{ changeId: string; command: string; cwd?: string | null }>; res: CommandView };
  "console.stop": { req: Req<{ commandId: string }>; res: CommandView };
  "console.list": { req: Req<object>; res: { commands: CommandView[] } };
  "console.output": { req: Req<{ commandId: string; offset?: number | null; maxBytes?: number | null }>; res: ConsolePage };
}

export const CONSOLE_REQUIRED: { [K in keyof ConsoleOps]: string[] } = {
  "console.run": ["projectId", "changeId", "command"],
  "console.stop": ["projectId", "commandId"],
  "console.list": ["projectId"],
  "console.output": ["projectId", "commandId"],
};

/** States in which the command's process may still be alive. */
export const LIVE = ["starting", "running", "continuing"];
