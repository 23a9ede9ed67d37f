//! A table declaration proposed from a CSV sample (column types, missing texts, a unique key), for the person to confirm; never registered unconfirmed.

import type { ColumnDecl, TableDecl } from "../api/types";

export const TYPES = ["string", "integer", "number", "boolean", "date", "datetime"] as const;

/** The records of a CSV text (RFC 4180 quotes; a last, possibly cut record is dropped when `partial`). */
export function parseCsv(text: string, partial: boolean): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      out.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (!partial && (field !== "" || row.length > 0)) {
    row.push(field);
    out.push(row);
  }
  return out;
}

const INTEGER = /^[-+]?(0|[1-9]\d*)$/;
// Rho reads "007" as a number, but a leading zero usually marks a code: the proposal keeps it text.
const NUMBER = /^[-+]?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[-+]\d{2}:\d{2})$/;
const MISSING = ["NA", ""];

/** The narrowest type every non-missing sample value fits. */
export function proposeType(values: string[]): ColumnDecl["type"] {
  const seen = values.filter((v) => !MISSING.includes(v));
  if (seen.length === 0) return "string";
  const all = (re: RegExp) => seen.every((v) => re.test(v));
  if (all(INTEGER) && seen.every((v) => Number.isSafeInteger(Number(v)))) return "integer";
  if (all(NUMBER)) return "number";
  if (seen.every((v) => v === "true" || v === "false")) return "boolean";
  if (all(DATE)) return "date";
  if (all(DATETIME)) return "datetime";
  return "string";
}

export interface Proposal {
  table: TableDecl;
  /** The sample the proposal read: header and the first rows. */
  header: string[];
  rows: string[][];
  /** Why the key was proposed (or why none was). */
  keyReason: string;
}

/** Proposes a declaration from a sample. `partial`: the sample is the file's start, not all of it. */
export function propose(sample: string, partial: boolean, namespace: string): Proposal {
  const records = parseCsv(sample, partial);
  const header = records[0] ?? [];
  const rows = records.slice(1);
  const columns: ColumnDecl[] = header.map((name, c) => {
    const values = rows.map((r) => r[c] ?? "");
    const type = proposeType(values);
    const missing = MISSING.filter((m) => values.includes(m));
    return missing.length > 0 ? { name, type, missing } : { name, type };
  });
  // The key: the first string column whose sample values are present and unique.
  let keyReason = "No column of the sample has unique, present text values, so no key is proposed.";
  let key: TableDecl["key"] = null;
  for (const [c, col] of columns.entries()) {
    if (col.type !== "string") continue;
    const values = rows.map((r) => r[c] ?? "");
    if (values.length > 0 && values.every((v) => !MISSING.includes(v)) && new Set(values).size === values.length) {
      key = { column: col.name, namespace };
      keyReason = `${col.name}: its ${values.length} sampled values are present and unique (Rho checks the whole file when it is read).`;
      break;
    }
  }
  return { table: { format: "csv", columns, key }, header, rows: rows.slice(0, 5), keyReason };
}
