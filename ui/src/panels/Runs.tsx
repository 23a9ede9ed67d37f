//! The Runs panel: the project's managed runs live, one run's logs followed, cancel, retry, export, artifacts and their check.

import { useCallback, useEffect, useState } from "react";
import { call } from "../api/client";
import { onShowRun, onWork, openPath } from "../work/bus";
import type { CheckReply, ExportReply, RunView } from "../work/ops";
import { Requirements } from "../work/Requirements";
import { RunLog } from "../work/RunLog";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** A run's state in words. */
export function stateOf(r: RunView): string {
  if (r.stop && r.execution === "running") return `stopping (${r.stop.state})`;
  if (r.execution === "running") return "running";
  if (r.execution === "exited" && r.exit) {
    if (r.exit.spawnError) return `did not start: ${r.exit.spawnError}`;
    if (r.stop) return r.stop.state === "stopped" ? `stopped by ${r.stop.requestedBy}` : `stopped (${r.stop.state}, asked by ${r.stop.requestedBy})`;
    return r.exit.exitCode === 0 ? "finished" : `failed (exit ${r.exit.exitCode ?? `signal ${r.exit.signal ?? "?"}`})`;
  }
  if (r.execution === "unknown") return "unknown (lost with its host)";
  return r.delivery === "not-sent" ? "not sent" : `delivery ${r.delivery}`;
}

function Details({ projectId, run, onChanged }: { projectId: string; run: RunView; onChanged: () => void }) {
  const [note, setNote] = useState<string | null>(null);
  const [unsaved, setUnsaved] = useState("leave");
  const [exported, setExported] = useState<ExportReply | null>(null);
  const [check, setCheck] = useState<CheckReply | null>(null);
  const op = run.operationId;
  const running = run.execution === "running";

  useEffect(() => {
    setNote(null);
    setExported(null);
    setCheck(null);
  }, [op]);

  const act = async (what: string, f: () => Promise<unknown>) => {
    setNote(`${what}…`);
    try {
      const said = await f();
      setNote(typeof said === "string" ? said : `${what}: done.`);
      onChanged();
    } catch (e) {
      setNote(`${what} refused: ${message(e)}`);
    }
  };

  return (
    <section className="run-details" aria-labelledby={`run-${op}`}>
      <h2 id={`run-${op}`}>
        {run.plan.script.path} <span className="muted">({stateOf(run)})</span>
      </h2>
      <p className="muted">
        Run {op}, by {run.submitter}, accepted {new Date(run.acceptedAt).toLocaleString()}
        {run.plan.script.kind === "buffer" ? `, from editor version ${run.plan.script.version}` : ", from the file on disk"}
        {run.repairOf ? `, a retry of ${run.repairOf}` : ""}.
      </p>
      <div className="toolbar">
        <button type="button" disabled={!running} onClick={() => void act("Cancel", () => call("action.cancel", { projectId, operationId: op }))}>
          Cancel
        </button>
        <button
          type="button"
          disabled={running}
          title="Delivers a run that was never sent; a run that was sent is never run again"
          onClick={() =>
            void act("Retry", async () => {
              const again: RunView = await call("action.retry", { projectId, operationId: op });
              // Only a run that was never sent is delivered again: say when nothing ran.
              return run.delivery === "not-sent" ? `Retry: delivered (${again.delivery}).` : "Retry: this run was sent already, so nothing runs again (Retry delivers only a run that was never sent).";
            })
          }
        >
          Retry
        </button>
        <button type="button" disabled={running} onClick={() => void act("Artifact check", async () => setCheck(await call("artifact.check", { projectId, operationId: op })))}>
          Check artifacts
        </button>
      </div>
      <div className="toolbar">
        <label className="inline">
          If the script has unsaved editor changes{" "}
          <select value={unsaved} onChange={(e) => setUnsaved(e.target.value)}>
            <option value="leave">leave them out (the saved file only)</option>
            <option value="include">include them, as a separate file</option>
          </select>
        </label>
        <button
          type="button"
          disabled={running}
          onClick={() =>
            void act("Export", async () =>
              setExported(await call("action.export", { projectId, operationId: op, exportId: `export-${crypto.randomUUID()}`, unsaved })),
            )
          }
        >
          Export
        </button>
      </div>
      <p role="status" className="note" data-testid="run-note">
        {note}
      </p>
      {exported && (
        <p data-testid="exported">
          Exported to <code>{exported.folder}</code>: {exported.files.filter((f) => f.exported).length} files{exported.partial ? " (partial)" : ""}
          {exported.leftOut.length > 0 ? `; left out ${exported.leftOut.map((l) => l.path).join(", ")}` : ""}
          {exported.unsaved ? `; the unsaved editor text is in ${exported.unsaved} (never run)` : ""}.
        </p>
      )}
      {run.plan.artifacts.length > 0 && (
        <>
          <h3>Artifacts</h3>
          <ul>
            {run.plan.artifacts.map((a) => (
              <li key={a.path}>
                <button type="button" className="link" onClick={() => openPath(`${run.plan.outputDirectory}/${a.path}`)}>
                  {a.path}
                </button>{" "}
                <span className="muted">
                  {a.kind}, {a.format}
                  {check ? (check.files.find((f) => f.path === a.path)?.matches ? ", matches its declaration" : ", does not match its declaration") : ""}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {check && (
        <p data-testid="artifact-check">
          {check.complete ? "Complete: every declared file matches." : "Not complete."} Completion file {check.completion.present ? (check.completion.valid ? "present and valid" : "present but invalid") : "absent"}.
        </p>
      )}
      <RunLog projectId={projectId} operationId={op} stream="stdout" running={running} />
      <RunLog projectId={projectId} operationId={op} stream="stderr" running={running} />
    </section>
  );
}

export function RunsPanel({ projectId }: { projectId: string }) {
  const [runs, setRuns] = useState<RunView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);

  const refresh = useCallback(() => {
    call("action.list", { projectId }).then(
      (r) => {
        setRuns([...r.runs].sort((a, b) => b.acceptedAt.localeCompare(a.acceptedAt)));
        setError(null);
      },
      (e: unknown) => setError(message(e)),
    );
  }, [projectId]);

  useEffect(() => {
    refresh();
    const off = onWork((kind) => kind === "run.changed" && refresh());
    const show = onShowRun((op) => {
      setSelected(op);
      refresh();
    });
    return () => {
      off();
      show();
    };
  }, [refresh]);

  const run = runs?.find((r) => r.operationId === selected) ?? null;
  return (
    <div className="panel-body runs">
      <h2 id="runs-title">Runs</h2>
      {error && <p role="alert">Could not list the runs: {error}</p>}
      <p role="status" className="muted">
        {runs === null ? "Loading the runs…" : `${runs.length} run${runs.length === 1 ? "" : "s"}; ${runs.filter((r) => r.execution === "running").length} running.`}
      </p>
      {runs && runs.length === 0 && <p>No runs yet. Open a script and press “Run this script”.</p>}
      {runs && runs.length > 0 && (
        <ul className="run-list" aria-labelledby="runs-title">
          {runs.map((r) => (
            <li key={r.operationId}>
              <button type="button" aria-current={r.operationId === selected} onClick={() => setSelected(r.operationId)}>
                {r.plan.script.path} — {stateOf(r)} <span className="muted">{new Date(r.acceptedAt).toLocaleTimeString()}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {run && <Details projectId={projectId} run={run} onChanged={refresh} />}
      <Requirements projectId={projectId} />
    </div>
  );
}
