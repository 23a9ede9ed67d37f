//! A value opened through `kernel.inspect`: tables as a grid with paging and sort by a column, other kinds as a readable list.

import { useCallback, useEffect, useRef, useState } from "react";
import { call } from "../api/client";
import type { InspectReply, Language } from "./ops";

const ROWS = 50;
const ANSWER: Record<string, string> = {
  none: "The session has no such value.",
  busy: "The session is busy running a cell; open the value again when it is idle.",
  missing: "The value is gone from the session.",
  timeout: "Reading the value took too long and was given up.",
  failed: "The session could not describe the value.",
  ended: "The session has ended; its values are gone.",
};

/** Column types whose cells align right (R and pandas names; values arrive as text). */
const NUMERIC = /^(numeric|integer|double|int|uint|float)/i;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (v === null || v === undefined ? "NA" : typeof v === "string" ? v : JSON.stringify(v));

export interface Opened {
  language: Language;
  path: string;
}

function Table({ value, onSort, onOffset }: { value: Obj; onSort: (column: string) => void; onOffset: (o: number) => void }) {
  // What the page shown is (offset, sort) comes from the reply, never from what was asked last.
  const offset = Number(value.offset ?? 0);
  const sorted = obj(value.sorted);
  const sort = typeof sorted.column === "string" ? { column: sorted.column, descending: Boolean(sorted.descending) } : null;
  const columns = arr(value.columns).map(obj);
  const rows = arr(obj(value.page).rows).map(obj);
  const total = Number(value.total ?? 0);
  const refused = value.sortRefused ? String(value.sortRefused) : null;
  return (
    <>
      <div className="toolbar" role="toolbar" aria-label="Pages of the value">
        <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - ROWS))}>
          Previous rows
        </button>
        <span role="status" data-testid="nb-inspect-status">
          Rows {total === 0 ? 0 : offset + 1}–{Math.min(offset + ROWS, total)} of {total.toLocaleString()}
          {sort ? `, sorted by ${sort.column} ${sort.descending ? "descending" : "ascending"}` : ""}
          {Number(value.columnsTotal ?? columns.length) > columns.length ? `; first ${columns.length} of ${String(value.columnsTotal)} columns` : ""}
        </span>
        <button type="button" disabled={offset + ROWS >= total} onClick={() => onOffset(offset + ROWS)}>
          Next rows
        </button>
      </div>
      {refused && <p role="alert">The sort was refused: {refused}</p>}
      <div className="nb-grid-wrap">
        <table className="nb-grid" data-testid="nb-inspect-table">
          <thead>
            <tr>
              <th scope="col">Row</th>
              {columns.map((c) => {
                const name = String(c.name);
                const on = sort?.column === name;
                return (
                  <th key={name} scope="col" aria-sort={on ? (sort?.descending ? "descending" : "ascending") : "none"}>
                    <button type="button" className="link" onClick={() => onSort(name)} aria-label={`Sort by ${name}`}>
                      {name}
                      {on ? (sort?.descending ? " ▼" : " ▲") : ""}
                    </button>{" "}
                    <span className="muted small">{String(c.type ?? "")}</span>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={String(r.index)}>
                <th scope="row">{str(r.label ?? r.index)}</th>
                {arr(r.values).map((v, i) => (
                  <td key={i} className={NUMERIC.test(String(columns[i]?.type ?? "")) ? "num" : undefined}>
                    {str(v)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Other({ value, onOpen }: { value: Obj; onOpen: (path: string) => void }) {
  const facts = obj(value.facts);
  const page = obj(value.page);
  const text = value.text ?? value.value;
  return (
    <>
      {Object.keys(facts).length > 0 && (
        <dl className="nb-facts">
          {Object.entries(facts).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{str(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {arr(value.coefficients).length > 0 && (
        <ul>
          {arr(value.coefficients).map((c, i) => (
            <li key={i}>
              {Object.entries(obj(c))
                .map(([k, v]) => `${k}: ${str(v)}`)
                .join(", ")}
            </li>
          ))}
        </ul>
      )}
      {arr(page.elements).length > 0 && (
        <ol className="nb-elements">
          {arr(page.elements).map((e, i) => {
            const el = obj(e);
            return <li key={i}>{`[${str(el.index)}]${el.name ? ` ${str(el.name)}` : ""} ${str(el.value)}`}</li>;
          })}
        </ol>
      )}
      {arr(page.parts).length > 0 && (
        <ul className="nb-parts">
          {arr(page.parts).map((p, i) => {
            const part = obj(p);
            return (
              <li key={i}>
                <button type="button" className="link" onClick={() => onOpen(String(part.path))}>
                  {str(part.name ?? part.path)}
                </button>{" "}
                <span className="muted">
                  {str(part.class)}, {str(part.size)}: {str(part.summary)}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {text !== undefined && <pre className="nb-text">{str(text)}</pre>}
      {Boolean(value.cut) && <p className="muted">The text was cut.</p>}
    </>
  );
}

export function Inspect({ projectId, opened, onOpen, onClose }: { projectId: string; opened: Opened; onOpen: (o: Opened) => void; onClose: () => void }) {
  const [reply, setReply] = useState<InspectReply | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [offset, setOffset] = useState(0);
  const [sort, setSort] = useState<{ column: string; descending: boolean } | null>(null);

  useEffect(() => {
    setOffset(0);
    setSort(null);
  }, [opened.language, opened.path]);

  // Only the latest request's answer is shown (an older page arriving late is dropped).
  const latest = useRef(0);
  const load = useCallback(() => {
    setProblem(null);
    const n = ++latest.current;
    call("kernel.inspect", { projectId, language: opened.language, path: opened.path, offset, rows: ROWS, sort }).then(
      (r) => n === latest.current && setReply(r),
      (e: unknown) => n === latest.current && setProblem(e instanceof Error ? e.message : String(e)),
    );
  }, [projectId, opened.language, opened.path, offset, sort]);
  useEffect(load, [load]);

  const value = obj(reply?.value);
  const onSort = (column: string) => {
    setOffset(0);
    setSort((s) => (s?.column === column ? { column, descending: !s.descending } : { column, descending: false }));
  };
  return (
    <section className="nb-inspect" aria-labelledby="nb-inspect-title" data-testid="nb-inspect">
      <h3 id="nb-inspect-title">
        Value <code>{opened.path}</code> <span className="muted small">{value.kind ? `${String(value.kind)}, ${arr(value.class).map(str).join(" ")}` : ""}</span>
      </h3>
      <div className="toolbar">
        <button type="button" onClick={load}>
          Read again
        </button>
        <button type="button" onClick={onClose}>
          Close the value
        </button>
      </div>
      {problem && <p role="alert">The value could not be read: {problem}</p>}
      {reply && reply.answer !== "value" && (
        <p role="status">
          {ANSWER[reply.answer] ?? reply.answer}
          {reply.reason ? ` (${reply.reason})` : ""}
        </p>
      )}
      {reply?.answer === "value" &&
        (value.kind === "table" ? (
          <Table value={value} onSort={onSort} onOffset={setOffset} />
        ) : (
          <Other value={value} onOpen={(path) => onOpen({ language: opened.language, path })} />
        ))}
    </section>
  );
}
