//! The "copy as code" generators: dplyr and pandas code that reads the file as Rho typed it and applies the same filter, selection and stable sort.

import { describe, expect, it } from "vitest";
import type { TableDecl } from "../src/api/types";
import { toDplyr, toPandas, type CodeQuery } from "../src/data/codegen";

const table: TableDecl = {
  format: "csv",
  key: { column: "id", namespace: "gene" },
  columns: [
    { name: "id", type: "string" },
    { name: "score", type: "number", missing: ["NA"] },
    { name: "n", type: "integer" },
    { name: "ok", type: "boolean" },
    { name: "day", type: "date" },
    { name: "odd name", type: "string", missing: ["", "NA"] },
  ],
};

const q: CodeQuery = {
  path: "data/t.csv",
  table,
  sort: [
    { column: "score", descending: true },
    { column: "n" },
  ],
  filter: [
    { column: "ok", op: "eq", value: true },
    { column: "odd name", op: "contains", value: 'say "hi"' },
    { column: "score", op: "missing" },
    { column: "day", op: "ge", value: "2024-01-02" },
  ],
  selected: ["k1", "k2"],
};

describe("copy as R (dplyr)", () => {
  it("reads with Rho's types and missing texts, then filters, selects and sorts", () => {
    expect(toDplyr(q)).toBe(
      [
        "library(readr)",
        "library(dplyr)",
        "",
        'df <- read_csv("data/t.csv", col_types = "cdilDc", na = c("NA", ""))',
        "df <- df |>",
        "  filter(!is.na(ok), ok == TRUE) |>",
        '  filter(!is.na(`odd name`), grepl("say \\"hi\\"", `odd name`, fixed = TRUE)) |>',
        "  filter(is.na(score)) |>",
        '  filter(!is.na(day), day >= as.Date("2024-01-02")) |>',
        '  filter(id %in% c("k1", "k2")) |>',
        "  arrange(desc(score), n)",
        "df",
      ].join("\n"),
    );
  });

  it("is just the read without a query", () => {
    expect(toDplyr({ ...q, sort: [], filter: [], selected: [] }).split("\n").slice(-2)).toEqual([
      'df <- read_csv("data/t.csv", col_types = "cdilDc", na = c("NA", ""))',
      "df",
    ]);
  });
});

describe("copy as Python (pandas)", () => {
  it("reads with Rho's types and missing texts, then filters, selects and sorts stably", () => {
    expect(toPandas(q)).toBe(
      [
        "import pandas as pd",
        "",
        'df = pd.read_csv("data/t.csv", dtype={"id": "str", "score": "float64", "n": "Int64", "ok": "boolean", "odd name": "str"}, keep_default_na=False, na_values=["NA", ""], parse_dates=["day"])',
        'df = df[df["ok"].notna() & (df["ok"] == True)]',
        'df = df[df["odd name"].str.contains("say \\"hi\\"", regex=False, na=False)]',
        'df = df[df["score"].isna()]',
        'df = df[df["day"].notna() & (df["day"] >= pd.Timestamp("2024-01-02"))]',
        'df = df[df["id"].isin(["k1", "k2"])]',
        'df = df.sort_values(["score", "n"], ascending=[False, True], kind="stable", na_position="last")',
        "df",
      ].join("\n"),
    );
  });

  it("writes a key-set filter as isin", () => {
    const code = toPandas({ ...q, sort: [], selected: [], filter: [{ column: "id", op: "in", value: ["a", "b"] }] });
    expect(code).toContain('df = df[df["id"].isin(["a", "b"])]');
  });
});
