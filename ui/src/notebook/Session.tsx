//! One session's block: its cells with who ran each, the queue, interrupt and stop, its variables linked to their cells, and a code box.

import { useState, type KeyboardEvent } from "react";
import { call } from "../api/client";
import type { CellView, Language } from "./ops";
import { cellDomId, LANGUAGE_NAME, stateInWords, whoRan, type Group } from "./model";
import { Output } from "./Output";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Brings a cell's article into view and focus (the variables list's links). */
export function focusCell(cellId: string): void {
  const el = document.getElementById(cellDomId(cellId));
  if (!el) return;
  el.scrollIntoView({ block: "center" });
  el.focus();
}

function Cell({ projectId, cell, cells, position, onNote }: { projectId: string; cell: CellView; cells: CellView[]; position?: number; onNote: (n: string) => void }) {
  const open = cell.state !== "ended";
  const interrupt = () =>
    call("kernel.interrupt", { projectId, cellId: cell.cellId }).then(
      () => onNote(`Cell ${cell.no}: interrupt asked.`),
      (e: unknown) => onNote(`Cell ${cell.no}: interrupt refused: ${message(e)}`),
    );
  return (
    <article id={cellDomId(cell.cellId)} className={`nb-cell nb-${cell.state}`} tabIndex={-1} aria-labelledby={`${cellDomId(cell.cellId)}-h`} data-testid={`nb-cell-${cell.no}`}>
      <h4 id={`${cellDomId(cell.cellId)}-h`}>
        Cell {cell.no} <span className="muted">by {whoRan(cell.by)}</span>{" "}
        <span className="nb-state" data-testid={`nb-state-${cell.no}`}>
          {stateInWords(cell, position)}
        </span>
      </h4>
      {cell.purpose && <p className="nb-purpose">Purpose: {cell.purpose}</p>}
      <pre className="nb-code">
        {cell.code}
      </pre>
      <Output projectId={projectId} cell={cell} cells={cells} />
      {cell.defined.length > 0 && <p className="muted small">Defined: {cell.defined.join(", ")}</p>}
      {open && (
        <button type="button" onClick={() => void interrupt()} aria-label={`Interrupt cell ${cell.no}`}>
          {cell.state === "running" ? "Interrupt" : "Do not run"}
        </button>
      )}
    </article>
  );
}

/** The code box of a language: Ctrl/Cmd+Enter runs it through `kernel.run` with a fresh changeId. */
export function CodeBox({ projectId, language, onNote }: { projectId: string; language: Language; onNote: (n: string) => void }) {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const name = LANGUAGE_NAME[language];
  const run = async () => {
    if (!code.trim() || busy) return;
    setBusy(true);
    try {
      const c = await call("kernel.run", { projectId, language, code, changeId: `nb-${crypto.randomUUID()}` });
      onNote(`${name} cell ${c.no} queued.`);
      setCode("");
    } catch (e) {
      onNote(`${name} cell refused: ${message(e)}`);
    } finally {
      setBusy(false);
    }
  };
  const key = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
    }
  };
  const id = `nb-code-${language}`;
  return (
    <div className="nb-codebox">
      <label htmlFor={id}>{name} code (Ctrl+Enter or Cmd+Enter runs it)</label>
      <textarea id={id} value={code} onChange={(e) => setCode(e.target.value)} onKeyDown={key} rows={3} spellCheck={false} />
      <button type="button" onClick={() => void run()} disabled={busy || !code.trim()}>
        Run {name}
      </button>
    </div>
  );
}

export function SessionBlock({
  projectId,
  group,
  cells,
  queue,
  paired,
  onInspect,
  onNote,
}: {
  projectId: string;
  group: Group;
  cells: CellView[];
  queue: Map<string, number>;
  paired: boolean;
  onInspect: (language: Language, path: string) => void;
  onNote: (n: string) => void;
}) {
  const s = group.session;
  const name = LANGUAGE_NAME[group.language];
  const waiting = group.cells.filter((c) => c.state === "waiting").length;
  const stop = () => {
    if (!s) return;
    call("kernel.stop", { projectId, sessionId: s.sessionId }).then(
      // Its end arrives as `kernel.changed {sessionId}` once the process has gone.
      () => onNote(`The ${name} session is stopping.`),
      (e: unknown) => onNote(`Stop refused: ${message(e)}`),
    );
  };
  const title = `${name} session${s ? ` ${s.state}` : ", waiting to start"}`;
  const hid = `nb-session-${group.key.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return (
    <section className="nb-session" aria-labelledby={hid} data-testid={`nb-session-${group.language}`}>
      <h3 id={hid}>
        {title}{" "}
        <span className="muted small">
          {s ? `${s.program}${s.version ? `, ${s.version}` : ""}${s.end ? `; ended (${s.end.reason}${s.end.by ? ` by ${whoRan(s.end.by)}` : ""})` : ""}` : ""}
          {waiting > 0 ? `; ${waiting} waiting` : ""}
        </span>
      </h3>
      {s && s.state !== "ended" && (
        <p>
          <button type="button" onClick={stop} disabled={paired} aria-describedby={paired ? `${hid}-why` : undefined}>
            Stop the {name} session
          </button>
          {paired && (
            <span id={`${hid}-why`} className="muted small">
              {" "}
              Only the browser on Rho's own computer may stop a session.
            </span>
          )}
        </p>
      )}
      {group.cells.map((c) => (
        <Cell key={c.cellId} projectId={projectId} cell={c} cells={cells} position={queue.get(c.cellId)} onNote={onNote} />
      ))}
      {s && s.state !== "ended" && (
        <details className="nb-vars" open>
          <summary>
            Variables of the {name} session ({s.variables.length}
            {s.variablesOmitted > 0 ? `, ${s.variablesOmitted} more not listed` : ""})
          </summary>
          {s.variables.length === 0 ? (
            <p className="muted">No variables yet.</p>
          ) : (
            <table className="nb-var-table" aria-label={`Variables of the ${name} session`}>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Size</th>
                  <th scope="col">Summary</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {s.variables.map((v) => {
                  const from = v.cellId ? cells.find((c) => c.cellId === v.cellId) : undefined;
                  return (
                    <tr key={v.name}>
                      <th scope="row">
                        {from ? (
                          <button type="button" className="link" onClick={() => focusCell(from.cellId)} aria-label={`${v.name}, defined by cell ${from.no}: show that cell`}>
                            {v.name}
                          </button>
                        ) : (
                          v.name
                        )}
                      </th>
                      <td>{v.type}</td>
                      <td>{v.size}</td>
                      <td className="nb-summary">{v.summary}</td>
                      <td>
                        <button type="button" onClick={() => onInspect(group.language, v.name)} aria-label={`Open ${v.name}`}>
                          Open
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </details>
      )}
    </section>
  );
}
