//! The scatter's range selection: plotted points inside a range, and integer axes filtered by whole numbers.

import { describe, expect, it } from "vitest";
import { bounds, inRange, keysOfPoints } from "../src/data/ranges";

describe("scatter ranges", () => {
  it("selects the plotted points inside a range, either way round", () => {
    const plot = { points: [{ key: "a", x: 1, y: 1 }, { key: "b", x: 2, y: 5 }, { key: null, x: 1, y: 1 }], sampling: { sampled: false, total: 3, returned: 3, method: "stride", step: 1 }, dropped: 0 };
    expect(keysOfPoints(plot, { x0: 3, x1: 0, y0: 0, y1: 2 })).toEqual(["a"]);
    expect(inRange({ x0: 0, x1: 2, y0: 0, y1: 5 }, 2, 5)).toBe(true);
  });

  it("filters an integer axis by the whole numbers inside the range", () => {
    expect(bounds({ column: "n", type: "integer" }, 4.2, 1.5)).toEqual([
      { column: "n", op: "ge", value: 2 },
      { column: "n", op: "le", value: 4 },
    ]);
    expect(bounds({ column: "x", type: "number" }, 1.5, 4.2)[0]?.value).toBe(1.5);
  });
});
