//! The registration form's proposal: types from a sample, missing texts seen, a unique present text key, quoted CSV.

import { describe, expect, it } from "vitest";
import { parseCsv, propose, proposeType } from "../src/data/propose";

describe("the table proposal", () => {
  it("reads quoted fields, CRLF and a cut last record", () => {
    expect(parseCsv('\ufeffa,b\r\n"x, ""y""",2\n"multi\nline",3\nz,', true)).toEqual([
      ["a", "b"],
      ['x, "y"', "2"],
      ["multi\nline", "3"],
    ]);
    expect(parseCsv("a\n1", false)).toEqual([["a"], ["1"]]);
  });

  it("proposes the narrowest type every present value fits", () => {
    expect(proposeType(["1", "-2", "NA"])).toBe("integer");
    expect(proposeType(["001"])).toBe("string");
    expect(proposeType(["1", "2.5", "-3e2"])).toBe("number");
    expect(proposeType(["true", "false"])).toBe("boolean");
    expect(proposeType(["2024-01-02"])).toBe("date");
    expect(proposeType(["2024-01-02T03:04:05Z"])).toBe("datetime");
    expect(proposeType(["NA", ""])).toBe("string");
  });

  it("proposes a key only for unique present text, and says why", () => {
    const p = propose("id,x,label\nk1,1,a\nk2,NA,a\nk3,3,\n", false, "gene");
    expect(p.table.columns).toEqual([
      { name: "id", type: "string" },
      { name: "x", type: "integer", missing: ["NA"] },
      { name: "label", type: "string", missing: [""] },
    ]);
    expect(p.table.key).toEqual({ column: "id", namespace: "gene" });
    expect(p.keyReason).toContain("3 sampled values");
    const none = propose("a,b\nx,1\nx,2\n", false, "t");
    expect(none.table.key).toBeNull();
  });
});
