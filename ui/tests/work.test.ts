//! The work panels' logic: the log follower (pages, split UTF-8, only new text) and the media rectangle (units, bounds, keys).

import { describe, expect, it } from "vitest";
import { LogFollower } from "../src/work/log";
import type { OutputPage } from "../src/work/ops";
import { nudge, pageSize, problem, toMedia, toShown } from "../src/work/rect";

/** A growing log served in pages of at most `pageBytes`. */
function server(pageBytes: number) {
  let log = new Uint8Array(0);
  const calls: number[] = [];
  return {
    calls,
    append(text: string) {
      const more = new TextEncoder().encode(text);
      const next = new Uint8Array(log.length + more.length);
      next.set(log);
      next.set(more, log.length);
      log = next;
    },
    appendBytes(more: Uint8Array) {
      const next = new Uint8Array(log.length + more.length);
      next.set(log);
      next.set(more, log.length);
      log = next;
    },
    async page(offset: number): Promise<OutputPage> {
      calls.push(offset);
      const chunk = log.slice(offset, offset + pageBytes);
      let bin = "";
      for (const b of chunk) bin += String.fromCharCode(b);
      return { bytes: btoa(bin), offset, nextOffset: offset + chunk.length, size: log.length, truncated: false };
    },
  };
}

describe("LogFollower", () => {
  it("hands on only the new text, across pages", async () => {
    const s = server(4);
    const f = new LogFollower((o) => s.page(o));
    s.append("hello world\n");
    expect(await f.pull()).toBe("hello world\n");
    expect(await f.pull()).toBe("");
    s.append("second line\n");
    expect(await f.pull()).toBe("second line\n");
    expect(f.position).toBe(24);
  });

  it("keeps a UTF-8 sequence split across pages and pulls whole", async () => {
    const s = server(3);
    const f = new LogFollower((o) => s.page(o));
    const bytes = new TextEncoder().encode("a😀b");
    s.appendBytes(bytes.slice(0, 3));
    expect(await f.pull()).toBe("a");
    s.appendBytes(bytes.slice(3));
    expect(await f.pull()).toBe("😀b");
  });

  it("does not overlap pulls and loses nothing asked for meanwhile", async () => {
    const s = server(1000);
    const f = new LogFollower((o) => s.page(o));
    s.append("one\n");
    const first = f.pull();
    s.append("two\n");
    const second = f.pull();
    const got = (await first) + (await second);
    expect(got).toBe("one\ntwo\n");
  });

  it("refuses a page that does not start where it asked", async () => {
    const f = new LogFollower(async () => ({ bytes: btoa("x"), offset: 5, nextOffset: 6, size: 6, truncated: false }));
    await expect(f.pull()).rejects.toThrow(/starts at 5/);
  });
});

describe("media rectangles", () => {
  const pdf = { format: "pdf", units: "pt", pages: [{ width: 612, height: 792 }, { width: 792, height: 612 }] };

  it("sizes a PDF page by its number and an SVG without a size as none", () => {
    expect(pageSize(pdf, 2)).toEqual({ width: 792, height: 612 });
    expect(pageSize(pdf, 3)).toBeNull();
    expect(pageSize({ format: "svg", units: "px", width: null, height: null }, 1)).toBeNull();
    expect(pageSize({ format: "png", units: "px", width: 640, height: 480 }, 1)).toEqual({ width: 640, height: 480 });
  });

  it("scales a drawn box to media units, from the top-left, clipped to the page", () => {
    // A 612 x 792 pt page shown 306 x 396 CSS px: every px is 2 pt.
    const shown = { width: 306, height: 396 };
    const page = { width: 612, height: 792 };
    expect(toMedia({ x: 10, y: 20, width: 50, height: 30 }, shown, page)).toEqual({ x: 20, y: 40, width: 100, height: 60 });
    // Drawn right-to-left and upwards, and past the edge.
    expect(toMedia({ x: 300, y: 390, width: -100, height: 20 }, shown, page)).toEqual({ x: 400, y: 780, width: 200, height: 12 });
    expect(toShown({ x: 20, y: 40, width: 100, height: 60 }, shown, page)).toEqual({ x: 10, y: 20, width: 50, height: 30 });
  });

  it("says why numbers are not a rectangle of the page", () => {
    const page = { width: 100, height: 50 };
    expect(problem({ x: 0, y: 0, width: 100, height: 50 }, page, "px")).toBeNull();
    expect(problem({ x: 1, y: 0, width: 100, height: 50 }, page, "px")).toMatch(/leaves the page/);
    expect(problem({ x: 0, y: 0, width: 0, height: 5 }, page, "px")).toMatch(/more than 0/);
    expect(problem({ x: -1, y: 0, width: 5, height: 5 }, page, "px")).toMatch(/0 or more/);
    expect(problem({ x: 0, y: 0, width: Number.NaN, height: 5 }, page, "px")).toMatch(/number/);
  });

  it("moves and resizes by keys, kept on the page", () => {
    const page = { width: 100, height: 50 };
    const r = { x: 95, y: 0, width: 5, height: 5 };
    expect(nudge(r, "ArrowRight", false, 10, page)).toEqual(r);
    expect(nudge(r, "ArrowLeft", false, 10, page)).toEqual({ ...r, x: 85 });
    expect(nudge(r, "ArrowUp", false, 10, page)).toEqual(r);
    expect(nudge({ x: 0, y: 0, width: 5, height: 5 }, "ArrowDown", true, 10, page)).toEqual({ x: 0, y: 0, width: 5, height: 15 });
    expect(nudge(r, "a", false, 10, page)).toBeNull();
  });
});
