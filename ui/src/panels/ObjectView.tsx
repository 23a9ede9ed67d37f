//! The Object panel (`rho.object`): an exported object as a keyboard-navigable JSON tree over `object.read`, read by pointer (a value too large for one read is opened by its children's pointers).

import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { call } from "../api/client";
import type { ObjectReadReply, ResourceView } from "../api/types";
import { childPointer, flatten, type TreeRow } from "../data/jsonTree";

export interface ObjectParams {
  projectId: string;
  resource: ResourceView;
  /** Opens the same file in the editor as text. */
  onText?: () => void;
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === "string") return <span className="json-str">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="json-num">{String(value)}</span>;
  return <span className="json-lit">{JSON.stringify(value)}</span>;
}

export function ObjectPanel({ projectId, resource, onText }: ObjectParams) {
  const id = useId();
  const [pointer, setPointer] = useState("");
  const [typed, setTyped] = useState("");
  const [reply, setReply] = useState<ObjectReadReply | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [open, setOpen] = useState<Set<string>>(() => new Set([""]));
  const [shown, setShown] = useState<Record<string, number>>({});
  const [focus, setFocus] = useState("");
  const tree = useRef<HTMLUListElement>(null);
  const moved = useRef(false);

  const read = useCallback(
    (p: string) => {
      setProblem(null);
      call("object.read", { projectId, resource: { id: resource.id, version: resource.version }, pointer: p }).then(
        (r) => {
          setReply(r);
          setPointer(r.pointer);
          setTyped(r.pointer);
          setOpen(new Set([""]));
          setFocus("");
        },
        (e: unknown) => setProblem(`${p === "" ? "The object" : p}: ${e instanceof Error ? e.message : String(e)}`),
      );
    },
    [projectId, resource.id, resource.version],
  );

  useEffect(() => read(""), [read]);

  const rows: TreeRow[] = useMemo(() => (reply ? flatten(reply.value, open, shown) : []), [reply, open, shown]);

  // The pointer field follows the focused node, so "Read" opens it alone.
  useEffect(() => {
    if (reply && focus !== "") setTyped(childPointer(pointer, focus));
  }, [focus, pointer, reply]);

  useEffect(() => {
    if (!moved.current) return;
    tree.current?.querySelector<HTMLElement>(`[data-path="${CSS.escape(focus)}"]`)?.focus();
  });

  const toggle = (path: string) => {
    const next = new Set(open);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    setOpen(next);
  };

  const onKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const at = rows.findIndex((r) => r.path === focus);
    const row = rows[at];
    if (!row) return;
    const go = (i: number) => {
      const r = rows[Math.max(0, Math.min(rows.length - 1, i))];
      if (r) {
        moved.current = true;
        setFocus(r.path);
      }
    };
    const keys: Record<string, () => void> = {
      ArrowDown: () => go(at + 1),
      ArrowUp: () => go(at - 1),
      Home: () => go(0),
      End: () => go(rows.length - 1),
      ArrowRight: () => (row.container && !row.expanded ? toggle(row.path) : row.container ? go(at + 1) : undefined),
      ArrowLeft: () => {
        if (row.container && row.expanded) toggle(row.path);
        else if (row.parent !== null) go(rows.findIndex((r) => r.path === row.parent));
      },
      Enter: () => (row.more ? setShown({ ...shown, [row.more]: (shown[row.more] ?? 100) + 100 }) : row.container ? toggle(row.path) : undefined),
    };
    const act = keys[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  };

  const provenance = reply ? Object.entries(reply.provenance).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`) : [];
  return (
    <div className="object-panel">
      <div className="toolbar">
        <span className="status" role="status">
          {reply ? `${reply.classes.join(", ") || "object"} · ${pointer === "" ? "the whole value" : `at ${pointer}`} · ${reply.bytes.toLocaleString("en")} bytes` : "Reading…"}
        </span>
        {onText && (
          <button type="button" onClick={onText}>
            Open as text
          </button>
        )}
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            read(typed.trim());
          }}
        >
          <label htmlFor={`${id}-ptr`} className="inline">
            Pointer
          </label>
          <input id={`${id}-ptr`} value={typed} placeholder="/coefficients/0" onChange={(e) => setTyped(e.target.value)} />
          <button type="submit">Read</button>
          <button type="button" disabled={pointer === ""} onClick={() => read(pointer.split("/").slice(0, -1).join("/"))}>
            Up
          </button>
        </form>
      </div>
      {provenance.length > 0 && <p className="muted small panel-body">{provenance.join(" · ")}</p>}
      {problem && (
        <p role="alert" className="problem">
          {problem}. A value too large for one read opens by a child's pointer (type it above, or focus a node and choose Read).
        </p>
      )}
      {reply && (
        <ul ref={tree} role="tree" className="json-tree" aria-label={`${resource.path} ${pointer === "" ? "" : pointer}`.trim()} onKeyDown={onKey}>
          {rows.map((r) => (
            <li
              key={r.path + (r.more ? "#more" : "")}
              role="treeitem"
              data-path={r.path}
              aria-level={r.depth + 1}
              aria-expanded={r.container ? r.expanded : undefined}
              aria-setsize={r.setSize}
              aria-posinset={r.posInSet}
              tabIndex={r.path === focus ? 0 : -1}
              style={{ paddingLeft: `${r.depth * 1.1}rem` }}
              onClick={() => {
                setFocus(r.path);
                if (r.more) setShown({ ...shown, [r.more]: (shown[r.more] ?? 100) + 100 });
                else if (r.container) toggle(r.path);
              }}
            >
              <span className="label">
                {r.container && <span aria-hidden="true">{r.expanded ? "▾ " : "▸ "}</span>}
                {r.more ? (
                  <span className="muted">{r.label}</span>
                ) : (
                  <>
                    {r.label !== null && <span className="json-key">{r.label}: </span>}
                    {r.container ? <span className="muted">{r.summary}</span> : <Scalar value={r.value} />}
                  </>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
