//! The Notebook panel: the project's R and Python cells by session, streaming as printed, with the queue, plots, variables and values.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { call } from "../api/client";
import { onWork } from "../work/bus";
import { Inspect, type Opened } from "../notebook/Inspect";
import { announce, groupBySession, LANGUAGE_NAME, LANGUAGES, mergeCells, queuePositions, readAll } from "../notebook/model";
import type { CellView, SessionView } from "../notebook/ops";
import { CodeBox, SessionBlock } from "../notebook/Session";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function NotebookPanel({ projectId, paired }: { projectId: string; paired: boolean }) {
  const [sessions, setSessions] = useState<SessionView[]>([]);
  const [cells, setCells] = useState<CellView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const [opened, setOpened] = useState<Opened | null>(null);
  const known = useRef(new Map<string, CellView>());
  // One reading per cell at a time; an event during it asks for one more afterwards.
  const reading = useRef(new Map<string, boolean>());

  const refresh = useCallback(() => {
    readAll((after) => call("kernel.read", { projectId, after })).then(
      (r) => {
        setSessions(r.sessions);
        for (const c of r.cells) known.current.set(c.cellId, c);
        setCells(mergeCells([], r.cells));
        setError(null);
      },
      (e: unknown) => setError(message(e)),
    );
  }, [projectId]);

  const readCell = useCallback(
    (cellId: string) => {
      if (reading.current.has(cellId)) {
        reading.current.set(cellId, true);
        return;
      }
      reading.current.set(cellId, false);
      call("kernel.read", { projectId, cellId })
        .then(
          (r) => {
            setSessions(r.sessions);
            const fresh = r.cells.filter((c) => c.cellId === cellId);
            for (const c of fresh) {
              const a = announce(known.current.get(c.cellId), c);
              if (a) setSaid(a);
              known.current.set(c.cellId, c);
            }
            setCells((old) => mergeCells(old ?? [], fresh));
          },
          (e: unknown) => setError(message(e)),
        )
        .finally(() => {
          const again = reading.current.get(cellId);
          reading.current.delete(cellId);
          if (again) readCell(cellId);
        });
    },
    [projectId],
  );

  useEffect(() => {
    refresh();
    return onWork((kind, data) => {
      if (kind === "gap") return refresh();
      if (kind !== "kernel.changed") return;
      const id = typeof data.cellId === "string" ? data.cellId : null;
      if (id) readCell(id);
      else refresh();
    });
  }, [refresh, readCell]);

  const all = useMemo(() => cells ?? [], [cells]);
  const groups = useMemo(() => groupBySession(sessions, all), [sessions, all]);
  const queue = useMemo(() => queuePositions(all), [all]);
  const inspect = useCallback((language: CellView["language"], path: string) => setOpened({ language, path }), []);
  const running = all.filter((c) => c.state === "running").length;
  const waiting = all.filter((c) => c.state === "waiting").length;

  return (
    <div className="panel-body notebook">
      <h2 id="nb-title">Notebook</h2>
      {error && <p role="alert">Could not read the notebook: {error}</p>}
      <p className="muted" data-testid="nb-summary">
        {cells === null ? "Loading the cells…" : `${all.length} cell${all.length === 1 ? "" : "s"}; ${running} running, ${waiting} waiting.`}
      </p>
      <p className="sr-only" role="log" aria-live="polite" aria-label="New notebook output" data-testid="nb-announce">
        {said}
      </p>
      <p role="status" className="note" data-testid="nb-note">
        {note}
      </p>
      {opened && <Inspect projectId={projectId} opened={opened} onOpen={setOpened} onClose={() => setOpened(null)} />}
      {LANGUAGES.map((lang) => (
        <section key={lang} className="nb-language" aria-labelledby={`nb-lang-${lang}`}>
          <h2 id={`nb-lang-${lang}`} className="nb-lang-title">
            {LANGUAGE_NAME[lang]}
          </h2>
          {groups
            .filter((g) => g.language === lang)
            .map((g) => (
              <SessionBlock key={g.key} projectId={projectId} group={g} cells={all} queue={queue} paired={paired} onInspect={inspect} onNote={setNote} />
            ))}
          <CodeBox projectId={projectId} language={lang} onNote={setNote} />
        </section>
      ))}
    </div>
  );
}
