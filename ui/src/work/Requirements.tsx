//! R packages a project needs: `requirements.check` (a probe) and `requirements.prepare` (install, then recheck) with the phases the service announces.

import { useEffect, useState } from "react";
import { call } from "../api/client";
import { onWork } from "./bus";
import { phaseText } from "./phases";
import type { ProbeReply, RequirementDecl } from "./ops";

function parse(text: string): RequirementDecl[] {
  return text
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const [pkg, min] = t.split(">=");
      return { package: pkg ?? t, source: "cran", minimumVersion: min ?? null };
    });
}

function Probe({ r }: { r: ProbeReply }) {
  return (
    <div>
      <p>
        {r.satisfied ? "Every package is there." : `Not satisfied${r.reason ? `: ${r.reason}` : ""}.`} R {r.r.version ?? "(version unknown)"}.
      </p>
      <ul>
        {r.packages.map((p) => (
          <li key={p.package}>
            {p.package}: {p.state}
            {p.version ? ` ${p.version}` : ""}
            {p.meetsMinimum === false ? " (older than the minimum)" : ""}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Requirements({ projectId }: { projectId: string }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState<null | "check" | "prepare">(null);
  const [since, setSince] = useState(0);
  const [now, setNow] = useState(0);
  const [probe, setProbe] = useState<ProbeReply | null>(null);
  const [note, setNote] = useState<string | null>(null);
  // The preparation in flight (its changeId) and the phase `requirements.progress` last said.
  const [preparing, setPreparing] = useState<string | null>(null);
  const [phase, setPhase] = useState<string | null>(null);

  useEffect(() => {
    if (!preparing) return;
    return onWork((kind, data) => {
      if (kind === "requirements.progress" && data["changeId"] === preparing) setPhase(phaseText(String(data["phase"]), data["packages"]));
    });
  }, [preparing]);

  useEffect(() => {
    if (!busy) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [busy]);

  const run = async (what: "check" | "prepare") => {
    const requirements = parse(text);
    if (requirements.length === 0) {
      setNote("Name at least one package (e.g. jsonlite, or ggplot2>=3.4).");
      return;
    }
    setBusy(what);
    setSince(Date.now());
    setNow(Date.now());
    setNote(null);
    try {
      if (what === "check") setProbe(await call("requirements.check", { projectId, requirements }));
      else {
        const changeId = `prepare-${crypto.randomUUID()}`;
        setPreparing(changeId);
        setPhase(null);
        const r = await call("requirements.prepare", { projectId, changeId, requirements });
        setProbe(r.check);
        setNote(r.satisfied ? `Prepared (${r.attempted.join(", ") || "nothing to install"}).` : `Not prepared${r.interrupted ? " (interrupted)" : ""}; exit ${r.exitCode ?? "none"}.`);
      }
    } catch (e) {
      setNote(`${what === "check" ? "Check" : "Prepare"} refused: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(null);
      setPreparing(null);
      setPhase(null);
    }
  };

  return (
    <section aria-labelledby="req-title">
      <h2 id="req-title">R packages</h2>
      <label htmlFor="req-list">Packages (comma or space separated; name&gt;=version for a minimum)</label>
      <div className="row">
        <input id="req-list" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="button" disabled={busy !== null} onClick={() => void run("check")}>
          Check
        </button>
        <button type="button" disabled={busy !== null} onClick={() => void run("prepare")}>
          Prepare
        </button>
      </div>
      <div role="status">
        {busy && (
          <>
            <progress aria-label={busy === "check" ? "Checking" : "Installing"} /> {busy === "check" ? "Checking" : (phase ?? "Preparing")}… {Math.round((now - since) / 1000)} s
          </>
        )}
        {note}
      </div>
      {probe && <Probe r={probe} />}
    </section>
  );
}
