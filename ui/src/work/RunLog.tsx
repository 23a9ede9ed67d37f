//! One stream of a run's log, followed as it grows: a `role=log` region that only ever appends the new text.

import { useEffect, useRef, useState } from "react";
import { call } from "../api/client";
import { onWork } from "./bus";
import { LogFollower } from "./log";

/** At most this much text is kept on screen (the head of the log stays readable in the export). */
const KEEP = 200_000;

export function RunLog({ projectId, operationId, stream, running }: { projectId: string; operationId: string; stream: "stdout" | "stderr"; running: boolean }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [truncated, setTruncated] = useState(false);
  const follower = useRef<LogFollower | null>(null);

  useEffect(() => {
    setText("");
    setError(null);
    const f = new LogFollower((offset) => call("action.output", { projectId, operationId, stream, offset }));
    follower.current = f;
    let live = true;
    const pull = () => {
      f.pull().then(
        (more) => {
          if (!live) return;
          setTruncated(f.truncated);
          if (more) setText((t) => (t + more).slice(-KEEP));
        },
        (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
      );
    };
    pull();
    // The service announces growth (`run.output`) and every state change (`run.changed`).
    const off = onWork((kind, data) => {
      if (data["operationId"] !== operationId) return;
      if (kind === "run.changed") pull();
      if (kind === "run.output" && (data["stream"] === undefined || data["stream"] === stream)) {
        const length = data["length"];
        if (typeof length !== "number" || length > f.position) pull();
      }
    });
    return () => {
      live = false;
      off();
    };
  }, [projectId, operationId, stream]);

  // The last pull after the run ends (its final bytes may follow the last announcement).
  useEffect(() => {
    if (!running) void follower.current?.pull().then((more) => more && setText((t) => (t + more).slice(-KEEP)));
  }, [running]);

  const label = stream === "stdout" ? "Output" : "Errors and messages";
  return (
    <section className="run-log">
      <h3 id={`log-${operationId}-${stream}`}>{label}</h3>
      {error && <p role="alert">Could not read the {stream} log: {error}</p>}
      <pre role="log" aria-labelledby={`log-${operationId}-${stream}`} tabIndex={0} data-testid={`log-${stream}`}>
        {text || (running ? "" : "(empty)")}
      </pre>
      {truncated && <p className="muted">The run wrote more than the log limit; the start is kept.</p>}
    </section>
  );
}
