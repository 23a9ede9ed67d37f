//! The table's filter bar: typed filters added and removed by form controls (never guessed), and "only selected rows" as a key-set filter.

import { useState, type FormEvent } from "react";
import type { ColumnDecl, FilterSpec } from "../api/types";
import { filterValue, opsFor } from "./cells";

const OP_TEXT: Record<string, string> = { eq: "=", ne: "≠", lt: "<", le: "≤", gt: ">", ge: "≥", contains: "contains", missing: "is missing" };

export function describeFilter(f: FilterSpec): string {
  if (f.op === "missing") return `${f.column} is missing`;
  if (f.op === "in") return `${f.column} in ${(f.value as unknown[]).length} selected keys`;
  return `${f.column} ${OP_TEXT[f.op] ?? f.op} ${JSON.stringify(f.value)}`;
}

export function FilterBar({ id, columns, filters, onChange }: { id: string; columns: ColumnDecl[]; filters: FilterSpec[]; onChange: (f: FilterSpec[]) => void }) {
  const [column, setColumn] = useState(columns[0]?.name ?? "");
  const col = columns.find((c) => c.name === column) ?? columns[0];
  const ops = col ? opsFor(col) : [];
  const [op, setOp] = useState("eq");
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const chosenOp = ops.some((o) => o.op === op) ? op : (ops[0]?.op ?? "eq");

  const add = (e: FormEvent) => {
    e.preventDefault();
    if (!col) return;
    const v = filterValue(col, chosenOp, text);
    if ("problem" in v) {
      setProblem(v.problem);
      return;
    }
    setProblem(null);
    onChange([...filters, { column: col.name, op: chosenOp, ...v }]);
    setText("");
  };

  return (
    <div className="filter-bar">
      <form className="filter-form" onSubmit={add} aria-label="Add a filter">
        <label htmlFor={`${id}-col`}>Column</label>
        <select id={`${id}-col`} value={col?.name ?? ""} onChange={(e) => setColumn(e.target.value)}>
          {columns.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name} ({c.type})
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-op`}>Condition</label>
        <select id={`${id}-op`} value={chosenOp} onChange={(e) => setOp(e.target.value)}>
          {ops.map((o) => (
            <option key={o.op} value={o.op}>
              {o.label}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-value`}>Value</label>
        <input id={`${id}-value`} value={text} disabled={chosenOp === "missing"} onChange={(e) => setText(e.target.value)} />
        <button type="submit">Add filter</button>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {filters.length > 0 && (
        <ul className="chips" aria-label="Filters">
          {filters.map((f, i) => (
            <li key={`${i}:${describeFilter(f)}`}>
              {describeFilter(f)}{" "}
              <button type="button" aria-label={`Remove filter ${describeFilter(f)}`} onClick={() => onChange(filters.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
