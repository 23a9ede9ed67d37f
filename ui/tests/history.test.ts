//! The History panel's logic: the line diff of a past version against now, and the edit that restores it.

import { describe, expect, it } from "vitest";
import { counts, lineDiff } from "../src/history/diff";
import { authorName, restoreEdits } from "../src/history/past";

function apply(text: string, edits: { start: number; end: number; text: string }[]): string {
  let out = "";
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

describe("history", () => {
  it("diffs by lines, keeping common lines in place", () => {
    const d = lineDiff("a\nb\nc\nd", "a\nB\nc\nd\ne");
    expect(d.map((l) => `${l.kind}:${l.text}`)).toEqual(["same:a", "del:b", "add:B", "same:c", "same:d", "add:e"]);
    expect(counts(d)).toEqual({ added: 2, removed: 1 });
    expect(counts(lineDiff("x\r\ny", "x\r\ny"))).toEqual({ added: 0, removed: 0 });
    expect(lineDiff("", "z").map((l) => l.kind)).toEqual(["del", "add"]);
  });

  it("a large middle is one removed and one added block, not a quadratic table", () => {
    const a = Array.from({ length: 5000 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 5000 }, (_, i) => `b${i}`).join("\n");
    expect(counts(lineDiff(a, b))).toEqual({ added: 5000, removed: 5000 });
  });

  it("restoring is one replacement of now's text that yields the past text exactly", () => {
    for (const [now, past] of [
      ["x <- 1\r\nplot(x) # 😀\n", "x <- 2\r\nplot(x) # 😁\n"],
      ["# Agent\n# Fits\nx", "# Fits\nx"],
      ["", "new"],
      ["same", "same"],
    ] as const) {
      const edits = restoreEdits(now, past);
      expect(apply(now, edits)).toBe(past);
      expect(edits.length).toBeLessThanOrEqual(1);
    }
  });

  it("names authors in words", () => {
    expect(authorName("local")).toBe("you (local)");
    expect(authorName("agent:claude")).toBe("Agent claude");
    expect(authorName("paired:ab")).toBe("paired:ab");
  });
});
