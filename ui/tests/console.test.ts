//! The Console panel's logic: the SGR parser, the history walk, the output rows with the cut, the follower's offsets, the state in words.

import { describe, expect, it } from "vitest";
import { ConsoleFollower } from "../src/console/follow";
import { historyOf, step, type Walk } from "../src/console/history";
import { OutputModel, ROW_CHARS, type Row } from "../src/console/lines";
import type { CommandView, ConsolePage } from "../src/console/ops";
import { initial, parse, PLAIN } from "../src/console/sgr";
import { stateWords, who } from "../src/console/words";

const parser = { parse, initial };
const enc = (s: string) => new TextEncoder().encode(s);
const b64 = (s: string) => btoa(String.fromCharCode(...enc(s)));
const text = (r: Row | undefined) => (r?.kind === "line" ? r.runs.map((x) => x.text).join("") : r ? `<cut ${r.omitted}>` : "");
const rows = (m: OutputModel) => Array.from({ length: m.count }, (_, i) => text(m.row(i)));

describe("the SGR parser", () => {
  it("colours a run and resets", () => {
    const { runs } = parse("\u001b[31mred\u001b[0m plain", initial());
    expect(runs.map((r) => [r.text, r.style.fg])).toEqual([
      ["red", "c1"],
      [" plain", null],
    ]);
  });
  it("reads bright, 256 and rgb colours, bold and background", () => {
    const { runs } = parse("\u001b[1;92ma\u001b[38;5;196mb\u001b[38;2;1;2;3;48;5;4mc\u001b[22;39;49md", initial());
    expect(runs.map((r) => [r.text, r.style.fg, r.style.bg, r.style.bold])).toEqual([
      ["a", "c10", null, true],
      ["b", "rgb(255,0,0)", null, true],
      ["c", "rgb(1,2,3)", "c4", true],
      ["d", null, null, false],
    ]);
  });
  it("finishes an escape cut between two chunks and keeps the style across them", () => {
    const a = parse("x\u001b[3", initial());
    expect(a.runs.map((r) => r.text)).toEqual(["x"]);
    expect(a.state.pending).toBe("\u001b[3");
    const b = parse("2mgreen", a.state);
    expect(b.runs).toEqual([{ text: "green", style: { ...PLAIN, fg: "c2" } }]);
    const c = parse("still", b.state);
    expect(c.runs[0]?.style.fg).toBe("c2");
  });
  it("drops other CSI and OSC sequences", () => {
    const { runs } = parse("a\u001b[2Kb\u001b]0;title\u0007c\u001b]8;;x\u001b\\d", initial());
    expect(runs.map((r) => r.text).join("")).toBe("abcd");
  });
});

describe("the history walk", () => {
  const h = historyOf(["ls", "ls", "echo hi", "", "make"]);
  it("counts a repeated command once, oldest first", () => expect(h).toEqual(["ls", "echo hi", "make"]));
  it("Up walks back from the newest, Down returns to the draft", () => {
    let w: Walk = { index: null, draft: "" };
    let line = "ec";
    const go = (dir: -1 | 1) => {
      const r = step(h, w, line, dir);
      w = r.walk;
      line = r.text;
      return line;
    };
    expect(go(-1)).toBe("make");
    expect(go(-1)).toBe("echo hi");
    expect(go(-1)).toBe("ls");
    expect(go(-1)).toBe("ls");
    expect(go(1)).toBe("echo hi");
    expect(go(1)).toBe("make");
    expect(go(1)).toBe("ec");
    expect(go(1)).toBe("ec");
  });
  it("an empty history leaves the line", () => expect(step([], { index: null, draft: "" }, "x", -1).text).toBe("x"));
});

describe("the output rows", () => {
  it("splits lines, keeps the streams apart and marks the cut", () => {
    const m = new OutputModel(parser);
    m.add("stdout", enc("one\ntw"));
    m.add("stdout", enc("o\n"));
    m.add("stderr", enc("err\n"));
    m.cut(42);
    m.add("stdout", enc("tail"));
    expect(rows(m)).toEqual(["one", "two", "err", "<cut 42>", "tail"]);
    expect(m.row(2)).toMatchObject({ kind: "line", stream: "stderr" });
    expect(m.cutRow()).toBe(3);
    expect(m.summary()).toBe("3 new lines, 1 on stderr");
    expect(m.summary()).toBeNull();
  });
  it("holds a UTF-8 character split across chunks and a carriage return overwrites the line", () => {
    const m = new OutputModel(parser);
    const e = enc("é\n");
    m.add("stdout", e.slice(0, 1));
    m.add("stdout", e.slice(1));
    m.add("stdout", enc("10%\r50%\r100%\n"));
    expect(rows(m)).toEqual(["é", "100%"]);
  });
  it("breaks a very long line into bounded rows", () => {
    const m = new OutputModel(parser);
    m.add("stdout", enc(`${"x".repeat(ROW_CHARS * 2 + 5)}\n`));
    expect(rows(m).map((r) => r.length)).toEqual([ROW_CHARS, ROW_CHARS, 5]);
    expect(m.row(0)).toMatchObject({ more: true });
    expect(m.row(2)).toMatchObject({ more: false });
  });
});

/**
 * A fake `console.output` with offsets counting every byte written: a head, then a kept tail
 * `{ start, text }` (the bytes between are not kept); pages of at most 4 bytes.
 */
function server(headOf: () => string, tailOf: () => { start: number; text: string } | null, complete: () => boolean) {
  const asked: number[] = [];
  const fetch = async (offset: number): Promise<ConsolePage> => {
    asked.push(offset);
    const head = headOf();
    const tail = tailOf();
    const h = head.length;
    const size = tail ? tail.start + tail.text.length : h;
    const chunks: ConsolePage["chunks"] = [];
    let next = offset;
    if (next < h) {
      chunks.push({ stream: "stdout", bytes: b64(head.slice(next, next + 4)) });
      next = Math.min(h, next + 4);
    }
    if (tail && next >= h && (next < tail.start || (offset <= h && next === h))) {
      chunks.push({ stream: "cut", omittedBytes: tail.start - h });
      next = tail.start;
    }
    if (tail && next >= tail.start && next < size) {
      chunks.push({ stream: "stderr", bytes: b64(tail.text.slice(next - tail.start)) });
      next = size;
    }
    return { commandId: "c", offset, nextOffset: next, size, complete: complete() && next >= size, chunks };
  };
  return { asked, fetch };
}

describe("the follower", () => {
  it("reads on from its last offset, never from 0 again", async () => {
    let head = "abcdefgh";
    let ended = false;
    const s = server(() => head, () => null, () => ended);
    const f = new ConsoleFollower(s.fetch, new OutputModel(parser));
    await f.pull();
    head += "ij\n";
    await f.pull();
    ended = true;
    await f.pull();
    expect(s.asked.filter((o) => o === 0)).toHaveLength(1);
    expect(s.asked).toEqual([...s.asked].sort((a, b) => a - b));
    expect(rows(f.model)).toEqual(["abcdefghij"]);
    expect(f.complete).toBe(true);
  });
  it("streams the tail while running and replaces it when the kept tail moved past what was read", async () => {
    let ended = false;
    let tail = { start: 1005, text: "last\n" };
    const s = server(() => "head\n", () => tail, () => ended);
    const f = new ConsoleFollower(s.fetch, new OutputModel(parser));
    await f.pull();
    expect(rows(f.model)).toEqual(["head", "<cut 1000>", "last"]);
    // More came within the kept tail: read on from the offset reached, nothing read twice.
    tail = { start: 1005, text: "last\nmore\n" };
    await f.pull();
    expect(rows(f.model)).toEqual(["head", "<cut 1000>", "last", "more"]);
    // The kept tail moved past what was read: one cut, with the new count, then the new tail.
    tail = { start: 5005, text: "final\n" };
    ended = true;
    await f.pull();
    expect(rows(f.model)).toEqual(["head", "<cut 5000>", "final"]);
    expect(s.asked.filter((o) => o === 0)).toHaveLength(1);
    expect(s.asked).toEqual([...s.asked].sort((a, b) => a - b));
    expect(f.complete).toBe(true);
  });
});

describe("a command in words", () => {
  const base: CommandView = {
    commandId: "c",
    changeId: "x",
    command: "sleep 30",
    cwd: "",
    by: "local",
    acceptedAt: "2026-01-01T00:00:00Z",
    state: "exited",
    pid: 1,
    startedAt: null,
    endedAt: null,
    exitCode: null,
    signal: 15,
    stoppedBy: "local",
    stopRequestedAt: "2026-01-01T00:00:01Z",
    stdoutBytes: 0,
    stderrBytes: 0,
    omittedBytes: null,
    note: null,
  };
  it("names the signal and who stopped it", () => expect(stateWords(base)).toBe("ended by signal 15 (SIGTERM), stopped by the local browser"));
  it("explains continuing and unknown", () => {
    expect(stateWords({ ...base, state: "continuing", stopRequestedAt: null })).toMatch(/still running after Rho restarted/);
    expect(stateWords({ ...base, state: "unknown", note: "its guard is gone" })).toMatch(/lost track of it \(its guard is gone\)/);
  });
  it("says who ran it", () => expect(who("agent:claude-code")).toBe("Agent claude-code"));
});
