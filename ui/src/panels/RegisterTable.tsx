//! The table registration form: column types, missing texts and a key proposed from the file's first lines, which the person confirms before `resource.register`.

import { useEffect, useId, useState, type FormEvent } from "react";
import { call } from "../api/client";
import { ApiError } from "../api/errors";
import type { ColumnDecl, ResourceView, TableDecl } from "../api/types";
import { propose, TYPES, type Proposal } from "../data/propose";

const SAMPLE_UNITS = 16_000;

export interface RegisterParams {
  projectId: string;
  path: string;
  /** Called with the registered version; the app then opens it as a table. */
  onRegistered: (r: ResourceView) => void;
}

const SAMPLE_BYTES = 64 * 1024;

/** The file's first UTF-16 units as text, through the document buffer. A file over the buffer
 * limit is refused (`limit`): the form then asks before sampling it another way. */
async function sampleByDocument(projectId: string, path: string): Promise<{ text: string; partial: boolean }> {
  const doc = await call("document.open", { projectId, path });
  const text = await call("document.read", { projectId, documentId: doc.id, version: doc.version, range: { start: 0, end: Math.min(doc.length, SAMPLE_UNITS) } });
  return { text: text.text, partial: doc.length > SAMPLE_UNITS };
}

/** The first 64 KiB of a large file, by recording its bytes as a plain `file` resource version
 * (the person asked for it) and reading that version's start. */
async function sampleByResource(projectId: string, path: string): Promise<{ text: string; partial: boolean }> {
  const r = await call("resource.register", { projectId, changeId: crypto.randomUUID(), path, kind: "file", format: "csv" });
  const bytes = await call("resource.read", { projectId, resource: { id: r.id, version: r.version }, offset: 0, length: Math.min(r.bytes, SAMPLE_BYTES) });
  const raw = Uint8Array.from(atob(bytes.data), (c) => c.charCodeAt(0));
  // A cut multi-byte character at the end is dropped with the cut last line.
  return { text: new TextDecoder("utf-8", { fatal: false }).decode(raw), partial: bytes.total > bytes.length };
}

export function RegisterTablePanel({ projectId, path, onRegistered }: RegisterParams) {
  const id = useId();
  const stem = (path.split("/").pop() ?? path).replace(/\.[^.]*$/, "") || "rows";
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const [columns, setColumns] = useState<ColumnDecl[]>([]);
  const [key, setKey] = useState("");
  const [namespace, setNamespace] = useState(stem);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tooLarge, setTooLarge] = useState(false);

  const take = (s: { text: string; partial: boolean }) => {
    const p = propose(s.text, s.partial, stem);
    setProposal(p);
    setColumns(p.table.columns);
    setKey(p.table.key?.column ?? "");
  };
  const failed = (e: unknown) => setProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);

  useEffect(() => {
    let live = true;
    sampleByDocument(projectId, path).then(
      (s) => live && take(s),
      (e: unknown) => {
        if (!live) return;
        if (e instanceof ApiError && e.code === "limit") setTooLarge(true);
        else failed(e);
      },
    );
    return () => {
      live = false;
    };
  }, [projectId, path, stem]);

  const setColumn = (i: number, patch: Partial<ColumnDecl>) => setColumns(columns.map((c, j) => (j === i ? { ...c, ...patch } : c)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    if (key && columns.find((c) => c.name === key)?.type !== "string") {
      setProblem("The key column must be of type string.");
      return;
    }
    const table: TableDecl = { format: "csv", columns, key: key ? { column: key, namespace: namespace.trim() } : null };
    setBusy(true);
    try {
      const r = await call("resource.register", { projectId, changeId: crypto.randomUUID(), path, kind: "table", format: "csv", table });
      onRegistered(r);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (!proposal && tooLarge) {
    return (
      <div className="panel-body">
        <h2>Register {path} as a table</h2>
        <p>
          This file is larger than a shared buffer, so its first lines cannot be read as a document. Rho can record the file's current bytes as a plain file resource
          version and read its first 64 KiB to propose the table; nothing is declared a table until you confirm.
        </p>
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            sampleByResource(projectId, path).then(take, failed).finally(() => setBusy(false));
          }}
        >
          Record the file and read a sample
        </button>
        {problem && <p role="alert">{problem}</p>}
      </div>
    );
  }
  if (!proposal) return <div className="panel-body">{problem ? <p role="alert">{problem}</p> : <p>Reading the first lines of {path}…</p>}</div>;
  return (
    <div className="register-panel">
      <form className="panel-body" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>Register {path} as a table</h2>
        <p>
          Rho proposed these types from the first {proposal.rows.length > 0 ? "lines" : "line"} of the file. Check them: nothing is registered until you confirm, and a cell
          that does not fit its type is reported, never coerced.
        </p>
        <table>
          <caption className="sr-only">Columns and their types</caption>
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Type</th>
              <th scope="col">Missing texts (comma-separated)</th>
            </tr>
          </thead>
          <tbody>
            {columns.map((c, i) => (
              <tr key={c.name}>
                <th scope="row">{c.name}</th>
                <td>
                  <select aria-label={`Type of ${c.name}`} value={c.type} onChange={(e) => setColumn(i, { type: e.target.value })}>
                    {TYPES.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    aria-label={`Missing texts of ${c.name}`}
                    value={(c.missing ?? []).map((m) => (m === "" ? '""' : m)).join(", ")}
                    onChange={(e) => {
                      const list = e.target.value
                        .split(",")
                        .map((s) => s.trim())
                        .filter((s) => s.length > 0)
                        .map((s) => (s === '""' ? "" : s));
                      setColumn(i, { missing: list.length > 0 ? list : null });
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <label htmlFor={`${id}-key`}>Entity key column</label>
        <select id={`${id}-key`} value={key} onChange={(e) => setKey(e.target.value)}>
          <option value="">No key (rows cannot be linked or selected)</option>
          {columns
            .filter((c) => c.type === "string")
            .map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
        </select>
        <p className="muted">Proposed: {proposal.keyReason}</p>
        <label htmlFor={`${id}-ns`}>Key namespace (tables and charts with the same namespace link their selections)</label>
        <input id={`${id}-ns`} value={namespace} disabled={!key} onChange={(e) => setNamespace(e.target.value)} required={!!key} />
        <div className="row" style={{ marginTop: ".8rem" }}>
          <button type="submit" disabled={busy}>
            Confirm and register
          </button>
        </div>
        {problem && <p role="alert">{problem}</p>}
      </form>
    </div>
  );
}
