//! How a typed cell reads in the table (missing distinct from an empty string), and a typed filter value from what the person typed.

import type { ColumnDecl } from "../api/types";

/** Whether a column's values align right (numbers). */
export function numeric(c: ColumnDecl): boolean {
  return c.type === "integer" || c.type === "number";
}

/** A cell as the table shows it: `null` is missing (a visible "NA" badge), "" an empty string. */
export function Cell({ value }: { value: unknown }) {
  if (value === null || value === undefined) {
    return (
      <span className="cell-missing" title="missing value">
        NA<span className="sr-only"> (missing)</span>
      </span>
    );
  }
  if (value === "") {
    return (
      <span className="cell-empty" title="empty string">
        ""<span className="sr-only"> (empty string)</span>
      </span>
    );
  }
  if (typeof value === "boolean") return <>{value ? "true" : "false"}</>;
  return <>{String(value)}</>;
}

/** The operations a filter offers for a column type. */
export function opsFor(c: ColumnDecl): { op: string; label: string }[] {
  const order = [
    { op: "eq", label: "=" },
    { op: "ne", label: "≠" },
    { op: "lt", label: "<" },
    { op: "le", label: "≤" },
    { op: "gt", label: ">" },
    { op: "ge", label: "≥" },
  ];
  const text = c.type === "string" || c.type === "date" || c.type === "datetime";
  const base = c.type === "boolean" ? order.slice(0, 2) : order;
  return [...base, ...(text ? [{ op: "contains", label: "contains" }] : []), { op: "missing", label: "is missing" }];
}

/** The JSON value of a filter typed by its column, or a message saying why the text does not fit. */
export function filterValue(c: ColumnDecl, op: string, text: string): { value?: unknown } | { problem: string } {
  if (op === "missing") return {};
  if (c.type === "integer") {
    return /^-?\d+$/.test(text.trim()) ? { value: Number(text.trim()) } : { problem: `${c.name} is an integer column: type a whole number` };
  }
  if (c.type === "number") {
    const n = Number(text.trim());
    return text.trim() !== "" && Number.isFinite(n) ? { value: n } : { problem: `${c.name} is a number column: type a number` };
  }
  if (c.type === "boolean") {
    const t = text.trim().toLowerCase();
    return t === "true" || t === "false" ? { value: t === "true" } : { problem: `${c.name} is a boolean column: type true or false` };
  }
  return { value: text };
}
