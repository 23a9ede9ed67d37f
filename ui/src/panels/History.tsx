//! The History panel (time travel): a buffer's past versions with author and time, a diff of one against now, and restoring it as an ordinary conditional edit.

import { useCallback, useEffect, useState } from "react";
import { call } from "../api/client";
import type { VersionOut } from "../api/types";
import { counts, lineDiff, type DiffLine } from "../history/diff";
import { authorName, restoreEdits, revisionText, versions } from "../history/past";
import { openDocument, type OpenDoc } from "./documents";

export interface HistoryParams {
  projectId: string;
  path: string;
}

const when = (time: string) => {
  const d = new Date(time);
  return Number.isNaN(d.getTime()) ? time : d.toLocaleString();
};

function Diff({ lines }: { lines: DiffLine[] }) {
  const { added, removed } = counts(lines);
  if (added === 0 && removed === 0) return <p>This version's text is the same as now.</p>;
  return (
    <>
      <p>
        Now, compared with this version: {added} line(s) added, {removed} line(s) removed.
      </p>
      <pre className="diff" data-testid="history-diff" tabIndex={0} aria-label="Differences between this version and now">
        {lines.map((l, i) => (
          <div key={i} className={`diff-${l.kind}`}>
            {l.kind === "add" ? "+ " : l.kind === "del" ? "− " : "  "}
            {l.text}
          </div>
        ))}
      </pre>
    </>
  );
}

export function HistoryPanel({ projectId, path }: HistoryParams) {
  const [doc, setDoc] = useState<OpenDoc | null>(null);
  const [list, setList] = useState<VersionOut[] | null>(null);
  const [chosen, setChosen] = useState<number | null>(null);
  const [past, setPast] = useState<string | null>(null);
  const [now, setNow] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const refresh = useCallback(async (d: OpenDoc) => {
    try {
      setList(await versions(projectId, d.id));
      setNow(d.binding.text());
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  }, [projectId]);

  useEffect(() => {
    let live = true;
    openDocument(projectId, path).then(
      (d) => {
        if (!live) return;
        setDoc(d);
        void refresh(d);
      },
      (e: unknown) => live && setProblem(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, path, refresh]);

  const choose = async (version: number) => {
    if (!doc) return;
    setChosen(version);
    setPast(null);
    setNote(null);
    try {
      setPast(await revisionText(projectId, doc.id, version));
      setNow(doc.binding.text());
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };

  const restore = async () => {
    if (!doc || past === null || chosen === null) return;
    await doc.binding.flush();
    const current = doc.binding.text();
    const edits = restoreEdits(current, past);
    if (edits.every((e) => e.start === e.end && e.text === "")) {
      setNote("The buffer already holds this version's text.");
      return;
    }
    try {
      const r = await call("document.edit", {
        projectId,
        documentId: doc.id,
        expectedVersion: doc.binding.version,
        changeId: crypto.randomUUID(),
        edits,
      });
      setNote(`Restored version ${chosen} as version ${r.version} (undo reverts it).`);
      await doc.binding.resync();
      await refresh(doc);
    } catch (e) {
      setNote(`Not restored: ${e instanceof Error ? e.message : String(e)}. The buffer moved on; choose the version again.`);
    }
  };

  return (
    <section className="panel-body history" aria-labelledby="history-title">
      <h2 id="history-title">History of {path}</h2>
      <div className="row">
        <button type="button" onClick={() => doc && void refresh(doc)} disabled={!doc}>
          Refresh
        </button>
        <span role="status" className="muted">
          {list === null ? "Loading versions…" : `${list.length} version(s) in the journal`}
        </span>
      </div>
      {problem && <p role="alert">{problem}</p>}
      <ol className="versions" aria-label="Versions, newest first">
        {(list ?? []).map((v) => (
          <li key={`${v.version}:${v.kind}`}>
            <button
              type="button"
              aria-pressed={chosen === v.version}
              className={v.author.startsWith("agent:") ? "version agent" : "version"}
              onClick={() => void choose(v.version)}
            >
              Version {v.version} · {v.kind} · {authorName(v.author)} · {when(v.time)}
            </button>
          </li>
        ))}
      </ol>
      {chosen !== null && (
        <div className="past" aria-live="polite">
          <h3>Version {chosen} against now</h3>
          {past === null ? <p>Reading version {chosen}…</p> : <Diff lines={lineDiff(past, now)} />}
          <button type="button" onClick={() => void restore()} disabled={past === null}>
            Restore version {chosen}
          </button>
        </div>
      )}
      {note && <p role="status">{note}</p>}
    </section>
  );
}
