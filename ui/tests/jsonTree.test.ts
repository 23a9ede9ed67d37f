//! The object tree's rows: only expanded containers show children, long ones 100 at a time, pointers escaped per RFC 6901.

import { describe, expect, it } from "vitest";
import { childPointer, flatten } from "../src/data/jsonTree";

describe("the JSON tree", () => {
  it("shows the children of expanded containers, with escaped pointers", () => {
    const v = { "a/b": { "~": 1 }, list: [true, null] };
    const closed = flatten(v, new Set([""]), {});
    expect(closed.map((r) => [r.path, r.summary || r.value])).toEqual([
      ["", "{2 fields}"],
      ["/a~1b", "{1 field}"],
      ["/list", "[2 items]"],
    ]);
    const open = flatten(v, new Set(["", "/a~1b"]), {});
    expect(open[2]).toMatchObject({ path: "/a~1b/~0", value: 1, depth: 2, parent: "/a~1b", setSize: 1, posInSet: 1 });
    expect(childPointer("/x", "/a~1b/~0")).toBe("/x/a~1b/~0");
  });

  it("pages long containers", () => {
    const v = Array.from({ length: 250 }, (_, i) => i);
    const rows = flatten(v, new Set([""]), {});
    expect(rows.length).toBe(1 + 100 + 1);
    expect(rows[101]).toMatchObject({ more: "", posInSet: 101, setSize: 101 });
    expect(rows[101]?.label).toContain("150 not shown");
    expect(flatten(v, new Set([""]), { "": 300 }).length).toBe(251);
  });
});
