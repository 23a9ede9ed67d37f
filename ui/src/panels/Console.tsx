//! The Console panel: a command line with this project's history, its commands running and finished, stop, and one command's output live.

import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { call } from "../api/client";
import { historyOf, step, type Walk } from "../console/history";
import { LIVE, type CommandView } from "../console/ops";
import { Output } from "../console/Output";
import { duration, stateWords, who } from "../console/words";
import { onWork } from "../work/bus";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const PAIRED = "Only the local browser on this computer runs and stops commands; this is a paired tab.";

function Details({ projectId, c, paired, now, onChanged }: { projectId: string; c: CommandView; paired: boolean; now: number; onChanged: () => void }) {
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => setNote(null), [c.commandId]);
  const live = LIVE.includes(c.state);
  const stop = async () => {
    setNote("Stopping…");
    try {
      await call("console.stop", { projectId, commandId: c.commandId });
      setNote("Stop sent: TERM now, KILL if it has not ended after the grace time.");
      onChanged();
    } catch (e) {
      setNote(`Stop refused: ${message(e)}`);
    }
  };
  const d = duration(c, now);
  return (
    <section className="console-details" aria-labelledby={`cmd-${c.commandId}`}>
      <h3 id={`cmd-${c.commandId}`}>
        <code>{c.command}</code>
      </h3>
      <p data-testid="console-state">
        <strong>{stateWords(c)}</strong>
      </p>
      <p className="muted">
        Run by {who(c.by)} in {c.cwd ? <code>{c.cwd}</code> : "the project folder"}
        {c.startedAt ? `, started ${new Date(c.startedAt).toLocaleString()}` : `, accepted ${new Date(c.acceptedAt).toLocaleString()}`}
        {d ? `, ${d}` : ""}
        {c.omittedBytes ? `; ${c.omittedBytes.toLocaleString("en")} bytes of output not kept (the head and the tail are)` : ""}.
      </p>
      {live && (
        <div className="toolbar">
          <button type="button" disabled={paired} aria-describedby={paired ? "console-stop-why" : undefined} onClick={() => void stop()}>
            Stop
          </button>
          {paired && (
            <span id="console-stop-why" className="muted">
              {PAIRED}
            </span>
          )}
        </div>
      )}
      <p role="status" className="note">
        {note}
      </p>
      <Output projectId={projectId} command={c} />
    </section>
  );
}

export function ConsolePanel({ projectId, paired }: { projectId: string; paired: boolean }) {
  const [commands, setCommands] = useState<CommandView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [line, setLine] = useState("");
  const [cwd, setCwd] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const walk = useRef<Walk>({ index: null, draft: "" });
  const known = useRef(new Map<string, string>());

  const refresh = useCallback(() => {
    call("console.list", { projectId }).then(
      (r) => {
        known.current = new Map(r.commands.map((c) => [c.commandId, c.state]));
        setCommands(r.commands);
        setError(null);
      },
      (e: unknown) => setError(message(e)),
    );
  }, [projectId]);

  useEffect(() => {
    refresh();
    // Output growth is the output view's; the list is read again when a state changes.
    return onWork((kind, data) => {
      if (kind !== "console.changed") return;
      const id = data["commandId"];
      if (typeof id !== "string" || known.current.get(id) !== data["state"] || data["outputBytes"] === undefined) refresh();
    });
  }, [refresh]);

  const running = commands?.filter((c) => LIVE.includes(c.state)).length ?? 0;
  useEffect(() => {
    if (running === 0) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running]);

  const history = useMemo(() => historyOf((commands ?? []).map((c) => c.command)), [commands]);
  const newest = commands && commands.length > 0 ? commands[commands.length - 1] : undefined;
  const shown = commands?.find((c) => c.commandId === selected) ?? newest ?? null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const command = line;
    if (!command.trim() || paired) return;
    setLine("");
    walk.current = { index: null, draft: "" };
    setNote(`Starting ${command}…`);
    try {
      const c = await call("console.run", { projectId, changeId: `console-${crypto.randomUUID()}`, command, cwd: cwd.trim() || null });
      setSelected(c.commandId);
      setNote(`Started ${command}.`);
      refresh();
    } catch (err) {
      setNote(`Not run: ${message(err)}`);
    }
  };

  const keys = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    const r = step(history, walk.current, line, e.key === "ArrowUp" ? -1 : 1);
    walk.current = r.walk;
    setLine(r.text);
  };

  return (
    <div className="panel-body console">
      <h2 id="console-title">Console</h2>
      <form className="console-line" onSubmit={(e) => void submit(e)}>
        <label htmlFor="console-command">Command</label>
        <input
          id="console-command"
          type="text"
          autoComplete="off"
          spellCheck={false}
          value={line}
          disabled={paired}
          aria-describedby="console-help"
          onChange={(e) => {
            setLine(e.target.value);
            walk.current = { index: null, draft: e.target.value };
          }}
          onKeyDown={keys}
        />
        <button type="submit" disabled={paired || !line.trim()}>
          Run
        </button>
        <label htmlFor="console-cwd">In folder</label>
        <input id="console-cwd" type="text" autoComplete="off" spellCheck={false} placeholder="project folder" value={cwd} disabled={paired} onChange={(e) => setCwd(e.target.value)} />
      </form>
      <p id="console-help" className="muted">
        {paired ? PAIRED : "Runs with your shell in the project folder. Enter runs it; Up and Down recall this project's earlier commands. A running command does not block the next."}
      </p>
      <p role="status" className="note" data-testid="console-note">
        {note}
      </p>
      {error && <p role="alert">Could not list the commands: {error}</p>}
      <h3 id="console-list-title">Commands</h3>
      <p className="muted">{commands === null ? "Loading the commands…" : `${commands.length} command${commands.length === 1 ? "" : "s"}; ${running} running.`}</p>
      {commands && commands.length > 0 && (
        <ul className="run-list console-list" aria-labelledby="console-list-title">
          {[...commands].reverse().map((c) => (
            <li key={c.commandId}>
              <button type="button" aria-current={c.commandId === shown?.commandId} onClick={() => setSelected(c.commandId)}>
                <code>{c.command}</code> — {stateWords(c)} <span className="muted">{who(c.by)}, {new Date(c.acceptedAt).toLocaleTimeString()}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {shown && <Details key={shown.commandId} projectId={projectId} c={shown} paired={paired} now={now} onChanged={refresh} />}
    </div>
  );
}
