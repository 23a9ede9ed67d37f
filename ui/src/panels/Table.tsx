//! The Table panel (`rho.table`): a virtual `role=grid` over `data.page` (server-side sort and filter, rows and columns virtualized), row selection linked by key, and the query copied as R or Python.

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useId, useMemo, useReducer, useRef, useState, type KeyboardEvent } from "react";
import { call } from "../api/client";
import { ApiError } from "../api/errors";
import type { FilterSpec, ResourceView, SortSpec, TableDecl } from "../api/types";
import { Cell, numeric } from "../data/cells";
import { toDplyr, toPandas } from "../data/codegen";
import { nextSort, sortRank } from "../data/sort";
import { FilterBar } from "../data/FilterBar";
import { PageCache } from "../data/pageCache";
import { select, useSelection } from "../data/selection";

const ROW_H = 28;
const HEAD_H = 32;
const COL_W = 150;

export interface TableParams {
  projectId: string;
  resource: ResourceView & { table: TableDecl };
  /** Opens a scatter of this table (the person picks the columns there). */
  onPlot?: () => void;
  /** Opens the same file in the editor as text. */
  onText?: () => void;
}

interface Problem {
  row: number;
  column?: string | null;
  reason: string;
}

function problemsOf(e: unknown): Problem[] | null {
  if (!(e instanceof ApiError)) return null;
  const p = e.details["problems"];
  return Array.isArray(p) ? (p as Problem[]) : null;
}

export function TablePanel({ projectId, resource, onPlot, onText }: TableParams) {
  const id = useId();
  const table = resource.table;
  const columns = table.columns;
  const keyColumn = table.key?.column ?? null;
  const namespace = table.key?.namespace ?? null;
  const [, changed] = useReducer((n: number) => n + 1, 0);
  const cache = useMemo(
    () =>
      new PageCache(
        (q, offset, limit) => call("data.page", { projectId, resource: { id: resource.id, version: resource.version }, offset, limit, sort: q.sort, filter: q.filter }),
        changed,
      ),
    [projectId, resource.id, resource.version],
  );
  const [sort, setSort] = useState<SortSpec[]>([]);
  const [filters, setFilters] = useState<FilterSpec[]>([]);
  const [onlySelected, setOnlySelected] = useState(false);
  const selected = useSelection(projectId, namespace);
  const [focus, setFocus] = useState<{ row: number; col: number }>({ row: -1, col: 0 });
  const [code, setCode] = useState<{ lang: string; text: string; note: string } | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const focusInside = useRef(false);

  const effective = useMemo(() => {
    if (!onlySelected || !keyColumn) return filters;
    return [...filters, { column: keyColumn, op: "in", value: [...selected].sort() }];
  }, [filters, onlySelected, keyColumn, selected]);

  useEffect(() => cache.setQuery({ sort, filter: effective }), [cache, sort, effective]);

  const total = cache.total ?? 0;
  const rows = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW_H, overscan: 8, paddingStart: HEAD_H, scrollPaddingStart: HEAD_H });
  const cols = useVirtualizer({ horizontal: true, count: columns.length, getScrollElement: () => scroller.current, estimateSize: () => COL_W, overscan: 2 });
  const items = rows.getVirtualItems();
  const colItems = cols.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const queryKey = JSON.stringify([sort, effective]);

  useEffect(() => {
    void cache.ensure(first, last);
  }, [cache, first, last, queryKey, cache.total]);

  // Roving focus: the focused cell keeps tabindex 0 and, after a key moved it, takes DOM focus.
  useEffect(() => {
    if (!focusInside.current) return;
    const el = scroller.current?.querySelector<HTMLElement>(`[data-cell="${focus.row}:${focus.col}"]`);
    el?.focus({ preventScroll: true });
  });

  const toggle = (key: string | null | undefined) => {
    if (!key || !namespace) return;
    const next = new Set(selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    void select(projectId, namespace, [...next]).catch(() => undefined);
  };

  const cycleSort = (name: string, add: boolean) => setSort((s) => nextSort(s, name, add));

  const move = (row: number, col: number) => {
    const r = Math.max(-1, Math.min(total - 1, row));
    const c = Math.max(0, Math.min(columns.length - 1, col));
    focusInside.current = true;
    setFocus({ row: r, col: c });
    if (r >= 0) rows.scrollToIndex(r, { align: "auto" });
    else if (scroller.current) scroller.current.scrollTop = 0;
    cols.scrollToIndex(c, { align: "auto" });
  };

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const pageRows = Math.max(1, Math.floor(((scroller.current?.clientHeight ?? 300) - HEAD_H) / ROW_H) - 1);
    const { row, col } = focus;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(row + 1, col),
      ArrowUp: () => move(row - 1, col),
      ArrowRight: () => move(row, col + 1),
      ArrowLeft: () => move(row, col - 1),
      PageDown: () => move(Math.max(0, row) + pageRows, col),
      PageUp: () => move(row - pageRows, col),
      Home: () => (e.ctrlKey ? move(0, 0) : move(row, 0)),
      End: () => (e.ctrlKey ? move(total - 1, columns.length - 1) : move(row, columns.length - 1)),
      " ": () => (row >= 0 ? toggle(cache.row(row)?.key) : undefined),
      Enter: () => {
        const c = columns[col];
        if (row < 0 && c) cycleSort(c.name, e.shiftKey);
        else if (row >= 0) toggle(cache.row(row)?.key);
      },
    };
    const act = keys[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  };

  const copy = (lang: "R" | "Python") => {
    const q = { path: resource.path, table, sort, filter: filters, selected: onlySelected ? [...selected].sort() : [] };
    const text = lang === "R" ? toDplyr(q) : toPandas(q);
    // The code shows at once; the note then says whether the clipboard has it too.
    const done = (note: string) => setCode({ lang, text, note });
    if (!navigator.clipboard) return done("Copy it from below");
    done(`Copying the ${lang} code…`);
    navigator.clipboard.writeText(text).then(
      () => done(`${lang} code copied`),
      () => done("Copy it from below"),
    );
  };

  const problems = problemsOf(cache.error);
  const sortOf = (name: string): "ascending" | "descending" | "none" => {
    // aria-sort names the first key only (ARIA: one sorted header at a time); the status lists them all.
    const s = sortRank(sort, name) === 1 ? sort[0] : undefined;
    return s ? (s.descending ? "descending" : "ascending") : "none";
  };
  const arrow = (name: string) => {
    const k = sort.find((x) => x.column === name);
    return k ? (k.descending ? " ▼" : " ▲") : "";
  };
  const width = cols.getTotalSize();
  const focusShown = colItems.some((c) => c.index === focus.col) && (focus.row === -1 || items.some((r) => r.index === focus.row));
  const status =
    cache.total === null
      ? cache.error
        ? "Could not read the table"
        : "Reading the table…"
      : `${cache.total.toLocaleString("en")} rows${effective.length > 0 ? " match" : ""} · ${selected.size.toLocaleString("en")} selected${namespace ? ` (${namespace} keys)` : ""}${
          sort.length > 1 ? ` · sorted by ${sort.map((k) => `${k.column} ${k.descending ? "descending" : "ascending"}`).join(", then ")}` : ""
        }`;

  return (
    <div className="table-panel">
      <div className="toolbar" role="toolbar" aria-label={`Table ${resource.path}`}>
        <span className="status" role="status" data-testid="table-status">
          {status}
        </span>
        <label className="inline">
          <input type="checkbox" checked={onlySelected} disabled={!keyColumn} onChange={(e) => setOnlySelected(e.target.checked)} /> Only selected rows
        </label>
        <button type="button" disabled={!namespace || selected.size === 0} onClick={() => namespace && void select(projectId, namespace, []).catch(() => undefined)}>
          Clear selection
        </button>
        <button type="button" onClick={() => copy("R")}>
          Copy as R (dplyr)
        </button>
        <button type="button" onClick={() => copy("Python")}>
          Copy as Python (pandas)
        </button>
        {onPlot && (
          <button type="button" onClick={onPlot}>
            Scatter plot…
          </button>
        )}
        {onText && (
          <button type="button" onClick={onText}>
            Open as text
          </button>
        )}
      </div>
      <FilterBar id={`${id}-filter`} columns={columns} filters={filters} onChange={setFilters} />
      {problems ? (
        <div role="alert" className="problem">
          <p>
            The table does not fit its declaration ({problems.length} {problems.length === 1 ? "problem" : "problems"}; Rho never coerces a cell):
          </p>
          <ul>
            {problems.slice(0, 20).map((p, i) => (
              <li key={i}>
                row {p.row}
                {p.column ? `, column ${p.column}` : ""}: {p.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : cache.error ? (
        <p role="alert" className="problem">
          {cache.error instanceof Error ? cache.error.message : String(cache.error)}
        </p>
      ) : null}
      {code && (
        <section className="code-copy" aria-label={`${code.lang} code of this view`}>
          <p role="status">{code.note}</p>
          <pre tabIndex={0} data-testid="code">
            {code.text}
          </pre>
        </section>
      )}
      <div
        ref={scroller}
        className="grid"
        role="grid"
        aria-label={`${resource.path}, version ${resource.version}`}
        aria-rowcount={total + 1}
        aria-colcount={columns.length}
        aria-multiselectable={namespace ? "true" : undefined}
        tabIndex={focusShown ? undefined : 0}
        onKeyDown={onKey}
        onFocus={(e) => {
          focusInside.current = true;
          // The focused cell scrolled away: Tab lands on the grid, which hands focus to the first row shown.
          if (e.target === e.currentTarget) move(items[0]?.index ?? -1, colItems[0]?.index ?? 0);
        }}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) focusInside.current = false;
        }}
      >
        <div role="rowgroup" className="grid-head" style={{ width, height: HEAD_H }}>
          <div role="row" aria-rowindex={1} className="grid-row" style={{ width, height: HEAD_H }}>
            {colItems.map((c) => {
              const col = columns[c.index];
              if (!col) return null;
              return (
                <div
                  key={c.key}
                  role="columnheader"
                  aria-colindex={c.index + 1}
                  aria-sort={sortOf(col.name)}
                  data-cell={`-1:${c.index}`}
                  tabIndex={focus.row === -1 && focus.col === c.index ? 0 : -1}
                  className={numeric(col) ? "grid-cell head num" : "grid-cell head"}
                  style={{ left: c.start, width: c.size, height: HEAD_H }}
                  onClick={(e) => {
                    move(-1, c.index);
                    cycleSort(col.name, e.shiftKey);
                  }}
                  title={`${col.name}: ${col.type}${col.name === keyColumn ? ", the key" : ""}. Enter sorts; Shift+Enter adds it as the next sort key.`}
                >
                  {col.name}
                  <span className="muted small"> {col.type}</span>
                  <span aria-hidden="true">
                    {arrow(col.name)}
                    {sort.length > 1 && sortRank(sort, col.name) > 0 ? sortRank(sort, col.name) : ""}
                  </span>
                </div>
              );
            })}
          </div>
        </div>
        <div role="rowgroup" style={{ height: rows.getTotalSize() - HEAD_H, width, position: "relative" }}>
          {items.map((r) => {
            const row = cache.row(r.index);
            const isSel = !!row?.key && selected.has(row.key);
            return (
              <div
                key={r.key}
                role="row"
                aria-rowindex={r.index + 2}
                aria-selected={namespace ? isSel : undefined}
                className={isSel ? "grid-row selected" : "grid-row"}
                style={{ transform: `translateY(${r.start - HEAD_H}px)`, width, height: ROW_H }}
                onClick={() => toggle(row?.key)}
              >
                {colItems.map((c) => {
                  const col = columns[c.index];
                  if (!col) return null;
                  return (
                    <div
                      key={c.key}
                      role="gridcell"
                      aria-colindex={c.index + 1}
                      data-cell={`${r.index}:${c.index}`}
                      tabIndex={focus.row === r.index && focus.col === c.index ? 0 : -1}
                      className={numeric(col) ? "grid-cell num" : "grid-cell"}
                      style={{ left: c.start, width: c.size, height: ROW_H }}
                      onFocus={() => (focus.row !== r.index || focus.col !== c.index) && setFocus({ row: r.index, col: c.index })}
                    >
                      {row ? <Cell value={row.cells[col.name]} /> : <span className="muted">…</span>}
                    </div>
                  );
                })}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
