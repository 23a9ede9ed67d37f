//! The Notebook panel's logic: cells merged by id, grouped by session, the queue's positions, ends and announcements in words.

import { describe, expect, it } from "vitest";
import { announce, groupBySession, mergeCells, queuePositions, readAll, replacedInWords, stateInWords, whoRan } from "../src/notebook/model";
import type { CellView, KernelRead, SessionView } from "../src/notebook/ops";

function cell(no: number, over: Partial<CellView> = {}): CellView {
  return {
    cellId: `c${no}`,
    no,
    language: "r",
    sessionId: "s1",
    by: "local",
    changeId: `ch${no}`,
    purpose: null,
    code: "1",
    state: "ended",
    queuedAtMs: no,
    startedAtMs: no,
    program: "Rscript",
    version: "R 4.2.2",
    output: [],
    cut: false,
    omittedBytes: 0,
    plots: [],
    notes: [],
    defined: [],
    removed: [],
    end: { outcome: "done", by: null, atMs: no, reason: null },
    ...over,
  };
}

function session(id: string, over: Partial<SessionView> = {}): SessionView {
  return { sessionId: id, language: "r", program: "Rscript", version: "R 4.2.2", pid: 1, state: "live", startedAtMs: 0, runners: [], interpreter: null, variables: [], variablesOmitted: 0, end: null, ...over };
}

describe("merging re-read cells", () => {
  it("replaces a cell by id with its newer read and keeps arrival order", () => {
    const old = [cell(1), cell(3, { state: "running", end: null })];
    const merged = mergeCells(old, [cell(3, { output: [{ stream: "stdout", text: "x" }] }), cell(2)]);
    expect(merged.map((c) => c.no)).toEqual([1, 2, 3]);
    expect(merged[2]?.output[0]?.text).toBe("x");
    expect(merged[2]?.state).toBe("ended");
  });
});

describe("grouping by session", () => {
  it("puts each cell under the session that ran it, languages apart, and waiting cells under their language's live session", () => {
    const sessions = [session("s1", { state: "ended" }), session("s2"), session("p1", { language: "python" })];
    const cells = [
      cell(1, { sessionId: "s1" }),
      cell(2, { sessionId: "p1", language: "python" }),
      cell(3, { sessionId: "s2" }),
      cell(4, { sessionId: null, state: "waiting", end: null }),
      cell(5, { sessionId: null, state: "waiting", end: null, language: "python" }),
    ];
    const groups = groupBySession(sessions, cells);
    expect(groups.map((g) => [g.key, g.cells.map((c) => c.no)])).toEqual([
      ["s1", [1]],
      ["p1", [2, 5]],
      ["s2", [3, 4]],
    ]);
  });

  it("gives waiting cells of a language without a live session a group of their own, and hides ended sessions without cells", () => {
    const groups = groupBySession([session("old", { state: "ended" })], [cell(1, { sessionId: null, state: "waiting", end: null })]);
    expect(groups.map((g) => [g.key, g.session, g.cells.length])).toEqual([["waiting:r", null, 1]]);
  });
});

describe("the queue", () => {
  it("numbers the waiting cells of each language in arrival order", () => {
    const cells = [
      cell(1, { state: "running", end: null }),
      cell(2, { state: "waiting", end: null }),
      cell(3, { state: "waiting", end: null, language: "python" }),
      cell(4, { state: "waiting", end: null }),
    ];
    const q = queuePositions(cells);
    expect([q.get("c1"), q.get("c2"), q.get("c3"), q.get("c4")]).toEqual([undefined, 1, 1, 2]);
    expect(stateInWords(cells[3]!, q.get("c4"))).toBe("waiting, number 2 in the R queue");
  });
});

describe("ends and people in words", () => {
  it("says each outcome, who interrupted and why", () => {
    expect(stateInWords(cell(1))).toBe("done");
    expect(stateInWords(cell(1, { end: { outcome: "interrupted", by: "agent:claude-code", atMs: 1, reason: null } }))).toBe("interrupted by the Agent claude-code");
    expect(stateInWords(cell(1, { end: { outcome: "error", by: null, atMs: 1, reason: "object 'y' not found" } }))).toBe("ended with an error: object 'y' not found");
    expect(stateInWords(cell(1, { end: { outcome: "not-run", by: "local", atMs: 1, reason: "interrupted while waiting" } }))).toBe("not run by you (local browser): interrupted while waiting");
    expect(stateInWords(cell(1, { end: { outcome: "unknown", by: null, atMs: 1, reason: "Rho closed" } }))).toBe("unknown: Rho closed");
    expect(whoRan("operator")).toBe("the operator");
  });

  it("names the plot a redrawn one replaced by its place and the earlier cell's number", () => {
    const cells = [cell(1, { cellId: "k-1" }), cell(2)];
    expect(replacedInWords("k-1#0", cells)).toBe("redraws plot 1 of cell 1");
    expect(replacedInWords("k-1#1", cells)).toBe("redraws plot 2 of cell 1");
    expect(replacedInWords("gone#2", cells)).toBe("redraws plot 3 of an earlier cell");
    expect(replacedInWords("k-1#x", cells)).toBe("redraws a plot of cell 1");
    expect(replacedInWords(null, cells)).toBeNull();
  });
});

describe("announcements", () => {
  it("say only what is new, briefly, and the end once", () => {
    const before = cell(7, { state: "running", end: null, output: [{ stream: "stdout", text: "[1] 1\n" }] });
    const after = cell(7, {
      output: [
        { stream: "stdout", text: "[1] 1\n" },
        { stream: "message", text: "m\n" },
        { stream: "warning", text: "w\n" },
      ],
    });
    expect(announce(before, after)).toBe("R cell 7: 2 new lines, done.");
    expect(announce(after, after)).toBeNull();
    expect(announce(undefined, cell(8, { state: "running", end: null, output: [{ stream: "stdout", text: "a\n" }] }))).toBe("R cell 8: 1 new line.");
  });
});

describe("reading every page", () => {
  it("follows `next` until the last page", async () => {
    const pages: Record<number, KernelRead> = {
      0: { sessions: [], cells: [cell(1)], next: 1, interpreters: [] },
      1: { sessions: [session("s1")], cells: [cell(2)], next: null, interpreters: [] },
    };
    const seen: number[] = [];
    const all = await readAll(async (after) => {
      seen.push(after);
      return pages[after]!;
    });
    expect(seen).toEqual([0, 1]);
    expect(all.cells.map((c) => c.no)).toEqual([1, 2]);
    expect(all.sessions.length).toBe(1);
  });
});
