//! The Notebook panel's logic without React: cells merged by id, grouped by session, the queue's positions and the ends in words.

import type { CellView, KernelRead, Language, OutputChunk, SessionView } from "./ops";

export const LANGUAGES: Language[] = ["r", "python"];
export const LANGUAGE_NAME: Record<Language, string> = { r: "R", python: "Python" };

/** Merges re-read cells into the known ones (same id: the newer read wins), in arrival order. */
export function mergeCells(known: CellView[], read: CellView[]): CellView[] {
  const byId = new Map(known.map((c) => [c.cellId, c]));
  for (const c of read) byId.set(c.cellId, c);
  return [...byId.values()].sort((a, b) => a.no - b.no);
}

/** One session's cells, or the cells of a language still waiting for a session. */
export interface Group {
  key: string;
  language: Language;
  session: SessionView | null;
  cells: CellView[];
}

/** Cells grouped by the session that ran them (cells waiting for a session join their language's newest live one, else a group of their own). */
export function groupBySession(sessions: SessionView[], cells: CellView[]): Group[] {
  const groups = new Map<string, Group>();
  for (const s of sessions) groups.set(s.sessionId, { key: s.sessionId, language: s.language, session: s, cells: [] });
  for (const c of cells) {
    let key = c.sessionId;
    if (!key || !groups.has(key)) {
      const live = [...sessions].reverse().find((s) => s.language === c.language && s.state !== "ended");
      key = live && !c.sessionId ? live.sessionId : (c.sessionId ?? `waiting:${c.language}`);
    }
    let g = groups.get(key);
    if (!g) {
      g = { key, language: c.language, session: null, cells: [] };
      groups.set(key, g);
    }
    g.cells.push(c);
  }
  const first = (g: Group) => g.cells[0]?.no ?? g.session?.startedAtMs ?? 0;
  return [...groups.values()].filter((g) => g.cells.length > 0 || g.session?.state !== "ended").sort((a, b) => first(a) - first(b));
}

/** The queue of each language: a waiting cell's 1-based position (cells of a session run one at a time, in arrival order). */
export function queuePositions(cells: CellView[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const lang of LANGUAGES) {
    const waiting = cells.filter((c) => c.language === lang && c.state === "waiting").sort((a, b) => a.no - b.no);
    waiting.forEach((c, i) => out.set(c.cellId, i + 1));
  }
  return out;
}

/** Who ran a cell, in words: the person (local browser, operator, paired tab) or the Agent by its name. */
export function whoRan(by: string): string {
  if (by === "local") return "you (local browser)";
  if (by === "operator") return "the operator";
  if (by.startsWith("agent:")) return `the Agent ${by.slice("agent:".length)}`;
  if (by.startsWith("paired:")) return `a paired tab (${by.slice("paired:".length)})`;
  return by;
}

/** A cell's state or end in words. */
export function stateInWords(c: CellView, position?: number): string {
  if (c.state === "waiting") return position ? `waiting, number ${position} in the ${LANGUAGE_NAME[c.language]} queue` : "waiting";
  if (c.state === "running") return "running";
  const e = c.end;
  if (!e) return "ended";
  const by = e.by ? ` by ${whoRan(e.by)}` : "";
  const why = e.reason ? `: ${e.reason}` : "";
  switch (e.outcome) {
    case "done":
      return "done";
    case "error":
      return `ended with an error${why}`;
    case "interrupted":
      return `interrupted${by}${why}`;
    case "not-run":
      return `not run${by}${why}`;
    case "unknown":
      return `unknown${why}`;
  }
}

/** The output's text, concatenated: what a reader hears compared with before. */
export const outputText = (out: OutputChunk[]) => out.map((o) => o.text).join("");

/** A short announcement of what a re-read cell printed since the last read (never the whole buffer). */
export function announce(before: CellView | undefined, after: CellView): string | null {
  const lang = LANGUAGE_NAME[after.language];
  const was = before ? outputText(before.output).length : 0;
  const added = outputText(after.output).slice(was);
  const lines = added.split("\n").filter((l) => l.trim() !== "").length;
  const parts: string[] = [];
  if (lines > 0) parts.push(`${lines} new line${lines === 1 ? "" : "s"}`);
  if (after.state === "ended" && before?.state !== "ended") parts.push(stateInWords(after));
  if (parts.length === 0) return null;
  return `${lang} cell ${after.no}: ${parts.join(", ")}.`;
}

/**
 * Which earlier plot a redrawn one replaced, in words. The owner writes `<cellId>#<index>` (the
 * plot's 0-based place in that cell's `plots`, what `kernel.plot` takes), named here as the
 * panel numbers plots (from 1) and by the cell's number.
 */
export function replacedInWords(replaces: string | null, cells: CellView[]): string | null {
  if (!replaces) return null;
  const at = replaces.lastIndexOf("#");
  const id = at < 0 ? replaces : replaces.slice(0, at);
  const index = at < 0 ? NaN : Number(replaces.slice(at + 1));
  const c = cells.find((x) => x.cellId === id);
  const plot = Number.isInteger(index) && index >= 0 ? `plot ${index + 1}` : "a plot";
  return `redraws ${plot} of ${c ? `cell ${c.no}` : "an earlier cell"}`;
}

/** The DOM id of a cell's article, for the variables list's links. */
export const cellDomId = (cellId: string) => `nb-cell-${cellId.replace(/[^A-Za-z0-9_-]/g, "_")}`;

/** What `kernel.read` answered, split into pages: the `after` of each next page until none. */
export async function readAll(read: (after: number) => Promise<KernelRead>): Promise<KernelRead> {
  let page = await read(0);
  const cells = [...page.cells];
  let guard = 0;
  while (page.next !== null && guard++ < 100) {
    page = await read(page.next);
    cells.push(...page.cells);
  }
  return { ...page, cells };
}
