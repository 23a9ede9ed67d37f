//! A command's output as rows: bytes of both streams decoded and coloured as they arrive, split into lines, with the head/tail cut as its own row.

import type { Run, SgrState } from "./sgr";

export type Stream = "stdout" | "stderr";

/** One row on screen: a line of one stream (`more`: it goes on in the next row), or the cut. */
export type Row = { kind: "line"; stream: Stream; runs: Run[]; more: boolean } | { kind: "cut"; omitted: number };

/** The SGR parser, handed in (its module is loaded lazily). */
export interface Parser {
  parse: (text: string, state: SgrState) => { runs: Run[]; state: SgrState };
  initial: () => SgrState;
}

/** A row longer than this goes on in the next row (a 1 MiB line must not be one DOM node). */
export const ROW_CHARS = 2000;

const fresh = () => ({ stdout: new TextDecoder("utf-8"), stderr: new TextDecoder("utf-8") });

export class OutputModel {
  readonly rows: Row[] = [];
  private open: { stream: Stream; runs: Run[]; length: number } | null = null;
  private decoders = fresh();
  private sgr: Record<Stream, SgrState>;
  private added = { stdout: 0, stderr: 0 };
  private sawStderr = false;

  constructor(private readonly parser: Parser) {
    this.sgr = { stdout: parser.initial(), stderr: parser.initial() };
  }

  /** Rows to draw: the finished ones, then the line still being written. */
  get count(): number {
    return this.rows.length + (this.open && this.open.length > 0 ? 1 : 0);
  }

  row(i: number): Row | undefined {
    if (i < this.rows.length) return this.rows[i];
    return this.open ? { kind: "line", stream: this.open.stream, runs: this.open.runs, more: false } : undefined;
  }

  /** Bytes of one stream, in the order the command wrote them. */
  add(stream: Stream, bytes: Uint8Array): void {
    if (stream === "stderr" && bytes.length > 0) this.sawStderr = true;
    const text = this.decoders[stream].decode(bytes, { stream: true });
    this.text(stream, text);
  }

  private text(stream: Stream, text: string): void {
    if (!text) return;
    const { runs, state } = this.parser.parse(text, this.sgr[stream]);
    this.sgr[stream] = state;
    if (this.open && this.open.stream !== stream && this.open.length > 0) this.end(false);
    for (const run of runs) {
      for (const piece of run.text.split(/(\r\n|\n|\r)/)) {
        if (piece === "\n" || piece === "\r\n") this.end(false);
        else if (piece === "\r") this.open = null;
        else this.append(stream, piece, run);
      }
    }
  }

  private append(stream: Stream, piece: string, run: Run): void {
    let rest = piece;
    while (rest) {
      if (!this.open || this.open.stream !== stream) this.open = { stream, runs: [], length: 0 };
      const room = ROW_CHARS - this.open.length;
      const part = rest.slice(0, room);
      this.open.runs.push({ text: part, style: run.style });
      this.open.length += part.length;
      rest = rest.slice(part.length);
      if (this.open.length >= ROW_CHARS) this.end(true);
    }
  }

  private end(more: boolean): void {
    const open = this.open ?? { stream: "stdout" as Stream, runs: [], length: 0 };
    this.rows.push({ kind: "line", stream: open.stream, runs: open.runs, more });
    if (!more) this.added[open.stream]++;
    this.open = more ? { stream: open.stream, runs: [], length: 0 } : null;
  }

  /** The head/tail cut with the bytes not kept between them: decoders and colours restart after it. */
  cut(omitted: number): void {
    for (const s of ["stdout", "stderr"] as Stream[]) this.text(s, this.decoders[s].decode());
    if (this.open && this.open.length > 0) this.end(false);
    this.open = null;
    this.rows.push({ kind: "cut", omitted });
    this.decoders = fresh();
    this.sgr = { stdout: this.parser.initial(), stderr: this.parser.initial() };
  }

  /** Whether any stderr bytes came (the panel then says how the two streams are ordered). */
  hasStderr(): boolean {
    return this.sawStderr;
  }

  /** The index of the cut row, if any. */
  cutRow(): number {
    return this.rows.findIndex((r) => r.kind === "cut");
  }

  /** Drops the cut row and what follows (the kept tail moved on: a new cut replaces it). */
  dropFromCut(): void {
    const at = this.cutRow();
    if (at >= 0) this.rows.length = at;
    this.open = null;
  }

  /** The end of the output: the last bytes of a split character and an unfinished line. */
  finish(): void {
    for (const s of ["stdout", "stderr"] as Stream[]) this.text(s, this.decoders[s].decode());
  }

  /** A short summary of the lines finished since the last call (`null`: none), for a polite live region. */
  summary(): string | null {
    const { stdout, stderr } = this.added;
    this.added = { stdout: 0, stderr: 0 };
    const n = stdout + stderr;
    if (n === 0) return null;
    const lines = `${n} new line${n === 1 ? "" : "s"}`;
    return stderr === 0 ? `${lines} of output` : stdout === 0 ? `${lines} on stderr` : `${lines}, ${stderr} on stderr`;
  }
}
