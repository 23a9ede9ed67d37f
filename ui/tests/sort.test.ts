//! The table's sort keys: a plain header activation sorts by that column alone; Shift adds, flips and removes keys in place.

import { describe, expect, it } from "vitest";
import { nextSort, sortRank } from "../src/data/sort";

describe("header activation without Shift", () => {
  it("cycles one column through ascending, descending and none", () => {
    const a = nextSort([], "x", false);
    expect(a).toEqual([{ column: "x", descending: false }]);
    const d = nextSort(a, "x", false);
    expect(d).toEqual([{ column: "x", descending: true }]);
    expect(nextSort(d, "x", false)).toEqual([]);
  });

  it("replaces several keys by the one column", () => {
    const two = [{ column: "g" }, { column: "x", descending: true }];
    expect(nextSort(two, "x", false)).toEqual([{ column: "x", descending: false }]);
    expect(nextSort(two, "n", false)).toEqual([{ column: "n", descending: false }]);
  });
});

describe("header activation with Shift", () => {
  it("appends a new key after the others, then flips it, then removes it keeping the rest", () => {
    const g = nextSort([], "g", false);
    const gx = nextSort(g, "x", true);
    expect(gx).toEqual([
      { column: "g", descending: false },
      { column: "x", descending: false },
    ]);
    const gxd = nextSort(gx, "x", true);
    expect(gxd).toEqual([
      { column: "g", descending: false },
      { column: "x", descending: true },
    ]);
    expect(nextSort(gxd, "x", true)).toEqual([{ column: "g", descending: false }]);
    // Flipping the first key keeps its place.
    expect(nextSort(gxd, "g", true)).toEqual([
      { column: "g", descending: true },
      { column: "x", descending: true },
    ]);
  });

  it("ranks the keys from 1, 0 for a column that is not one", () => {
    const gx = [{ column: "g" }, { column: "x" }];
    expect([sortRank(gx, "g"), sortRank(gx, "x"), sortRank(gx, "n")]).toEqual([1, 2, 0]);
  });
});
