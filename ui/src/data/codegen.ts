//! The table's current query (sort, filter, selected keys) as R (dplyr) and Python (pandas) code that reproduces the page.

import type { ColumnDecl, FilterSpec, SortSpec, TableDecl } from "../api/types";

export interface CodeQuery {
  path: string;
  table: TableDecl;
  sort: SortSpec[];
  filter: FilterSpec[];
  /** Selected entity keys (on the key column); empty: no selection filter. */
  selected: string[];
}

function rString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r")}"`;
}

function pyString(s: string): string {
  return JSON.stringify(s);
}

function rName(n: string): string {
  return /^[A-Za-z.][A-Za-z0-9._]*$/.test(n) && !/^\.[0-9]/.test(n) ? n : `\`${n.replace(/`/g, "\\`")}\``;
}

function column(t: TableDecl, name: string): ColumnDecl {
  return t.columns.find((c) => c.name === name) ?? { name, type: "string" };
}

function rValue(c: ColumnDecl, v: unknown): string {
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (typeof v === "number") return String(v);
  if (c.type === "date") return `as.Date(${rString(String(v))})`;
  if (c.type === "integer") return String(v);
  return rString(String(v));
}

function pyValue(c: ColumnDecl, v: unknown): string {
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return String(v);
  if (c.type === "date" || c.type === "datetime") return `pd.Timestamp(${pyString(String(v))})`;
  if (c.type === "integer") return String(v);
  return pyString(String(v));
}

const R_OPS: Record<string, string> = { eq: "==", ne: "!=", lt: "<", le: "<=", gt: ">", ge: ">=" };

/** The readr column types of the declaration, so the code reads what Rho typed. */
function rTypes(t: TableDecl): string {
  const letter: Record<string, string> = { string: "c", integer: "i", number: "d", boolean: "l", date: "D", datetime: "T" };
  return t.columns.map((c) => letter[c.type] ?? "c").join("");
}

function rMissing(t: TableDecl): string {
  const all = new Set<string>();
  for (const c of t.columns) for (const m of c.missing ?? []) all.add(m);
  return `c(${[...all].map(rString).join(", ")})`;
}

/** R with readr and dplyr. Missing values sort last either way, as in Rho. */
export function toDplyr(q: CodeQuery): string {
  const lines = [
    "library(readr)",
    "library(dplyr)",
    "",
    `df <- read_csv(${rString(q.path)}, col_types = ${rString(rTypes(q.table))}, na = ${rMissing(q.table)})`,
  ];
  const steps: string[] = [];
  for (const f of q.filter) {
    const c = column(q.table, f.column);
    const n = rName(f.column);
    if (f.op === "missing") steps.push(`filter(is.na(${n}))`);
    else if (f.op === "contains") steps.push(`filter(!is.na(${n}), grepl(${rString(String(f.value))}, ${n}, fixed = TRUE))`);
    else if (f.op === "in") steps.push(`filter(${n} %in% c(${(f.value as string[]).map(rString).join(", ")}))`);
    else steps.push(`filter(!is.na(${n}), ${n} ${R_OPS[f.op] ?? "=="} ${rValue(c, f.value)})`);
  }
  if (q.selected.length > 0 && q.table.key) {
    steps.push(`filter(${rName(q.table.key.column)} %in% c(${q.selected.map(rString).join(", ")}))`);
  }
  if (q.sort.length > 0) {
    // arrange() puts NA last in both directions; ties keep file order.
    steps.push(`arrange(${q.sort.map((s) => (s.descending ? `desc(${rName(s.column)})` : rName(s.column))).join(", ")})`);
  }
  if (steps.length > 0) lines.push(`df <- df |>\n  ${steps.join(" |>\n  ")}`);
  lines.push("df");
  return lines.join("\n");
}

const PY_OPS: Record<string, string> = { eq: "==", ne: "!=", lt: "<", le: "<=", gt: ">", ge: ">=" };

/** Python with pandas. A stable sort with missing values last, as in Rho. */
export function toPandas(q: CodeQuery): string {
  const dtypes: Record<string, string> = { string: "str", integer: "Int64", number: "float64", boolean: "boolean" };
  const dtype = q.table.columns.filter((c) => dtypes[c.type]).map((c) => `${pyString(c.name)}: ${pyString(dtypes[c.type] ?? "str")}`);
  const dates = q.table.columns.filter((c) => c.type === "date" || c.type === "datetime").map((c) => pyString(c.name));
  const na = new Set<string>();
  for (const c of q.table.columns) for (const m of c.missing ?? []) na.add(m);
  const args = [pyString(q.path), `dtype={${dtype.join(", ")}}`, `keep_default_na=False`, `na_values=[${[...na].map(pyString).join(", ")}]`];
  if (dates.length > 0) args.push(`parse_dates=[${dates.join(", ")}]`);
  const lines = ["import pandas as pd", "", `df = pd.read_csv(${args.join(", ")})`];
  for (const f of q.filter) {
    const c = column(q.table, f.column);
    const col = `df[${pyString(f.column)}]`;
    if (f.op === "missing") lines.push(`df = df[${col}.isna()]`);
    else if (f.op === "contains") lines.push(`df = df[${col}.str.contains(${pyString(String(f.value))}, regex=False, na=False)]`);
    else if (f.op === "in") lines.push(`df = df[${col}.isin([${(f.value as string[]).map(pyString).join(", ")}])]`);
    else lines.push(`df = df[${col}.notna() & (${col} ${PY_OPS[f.op] ?? "=="} ${pyValue(c, f.value)})]`);
  }
  if (q.selected.length > 0 && q.table.key) {
    lines.push(`df = df[df[${pyString(q.table.key.column)}].isin([${q.selected.map(pyString).join(", ")}])]`);
  }
  if (q.sort.length > 0) {
    const by = q.sort.map((s) => pyString(s.column)).join(", ");
    const asc = q.sort.map((s) => (s.descending ? "False" : "True")).join(", ");
    lines.push(`df = df.sort_values([${by}], ascending=[${asc}], kind="stable", na_position="last")`);
  }
  lines.push("df");
  return lines.join("\n");
}
