//! The Agent panel: connecting an Agent, the Agents with access (revocable), the activity feed live, and the bindings.

import { useCallback, useEffect, useRef, useState } from "react";
import { call } from "../api/client";
import { onWork } from "../work/bus";
import { Connect } from "../work/Connect";
import { expiredAt, expiryNote, timerDelay, untilNextExpiry } from "../work/expiry";
import type { ActivityView, AgentView, BindingOut } from "../work/ops";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const FEED = 200;

function Agents({ projectId, agents, expired, onChanged }: { projectId: string; agents: AgentView[]; expired: string | null; onChanged: () => void }) {
  const [note, setNote] = useState<string | null>(null);
  const revoke = async (session: string) => {
    try {
      const r = await call("session.revoke", { projectId, session });
      setNote(r.revoked ? `Revoked ${session}: its credential no longer works.` : `${session} had no grant.`);
      onChanged();
    } catch (e) {
      setNote(`Revoking ${session} was refused: ${message(e)}`);
    }
  };
  return (
    <section aria-labelledby="agents-title">
      <h2 id="agents-title">Agents with access</h2>
      <p role="status" className="note" data-testid="agents-note">
        {note ?? (agents.length === 0 ? "No Agent has access to this project." : `${agents.length} with access.`)}
      </p>
      <p role="status" className="note" data-testid="expiry-note">
        {expired}
      </p>
      <ul className="agents">
        {agents.map((a) => (
          <li key={a.session} data-testid={`agent-${a.session}`}>
            <strong>{a.label || a.session}</strong> <span className="muted">({a.principal})</span>
            <div className="muted">
              {a.methods.length} methods, {Date.parse(a.expiresAt) <= Date.now() ? "expired" : "expires"} {new Date(a.expiresAt).toLocaleString()};{" "}
              {a.latestCall ? `latest call ${a.latestCall.method} (${a.latestCall.outcome}${a.latestCall.code ? `, ${a.latestCall.code}` : ""}) at ${new Date(a.latestCall.time).toLocaleTimeString()}` : "no call yet"}.
            </div>
            <details>
              <summary>Methods</summary>
              <p>{a.methods.join(", ")}</p>
            </details>
            <button type="button" onClick={() => void revoke(a.session)}>
              Revoke {a.session}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Activity({ records }: { records: ActivityView[] }) {
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <div className="activity" role="log" aria-labelledby="activity-title" tabIndex={0} data-testid="activity">
        <ol>
          {records.map((r) => (
            <li key={r.seq}>
              <span className="muted">{new Date(r.time).toLocaleTimeString()}</span> {r.principal} {r.method}: {r.outcome}
              {r.code ? ` (${r.code})` : ""}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

function Bindings({ projectId, revision }: { projectId: string; revision: number }) {
  const [bindings, setBindings] = useState<BindingOut[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [records, setRecords] = useState<ActivityView[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call("binding.list", { projectId }).then(
      (r) => setBindings(r.bindings),
      (e: unknown) => setError(message(e)),
    );
  }, [projectId, revision]);
  useEffect(() => {
    if (!open) return;
    call("binding.activity", { projectId, bindingId: open, limit: 50 }).then(
      (r) => setRecords(r.records),
      (e: unknown) => setError(message(e)),
    );
  }, [projectId, open, revision]);
  return (
    <section aria-labelledby="bindings-title">
      <h2 id="bindings-title">Bindings</h2>
      {error && <p role="alert">{error}</p>}
      {bindings && bindings.length === 0 && <p className="muted">No Agent client has opened a binding.</p>}
      <ul>
        {bindings?.map((b) => (
          <li key={b.bindingId}>
            <button type="button" aria-expanded={open === b.bindingId} onClick={() => setOpen(open === b.bindingId ? null : b.bindingId)}>
              {b.label} ({b.client}, {b.session})
            </button>{" "}
            <span className="muted">
              opened {new Date(b.openedAt).toLocaleString()}
              {b.closedAt ? `, closed ${new Date(b.closedAt).toLocaleString()}` : ""}
            </span>
            {open === b.bindingId && (
              <ol>
                {records.map((r) => (
                  <li key={r.seq}>
                    {r.method}: {r.outcome}
                  </li>
                ))}
              </ol>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function AgentPanel({ projectId, paired }: { projectId: string; paired: boolean }) {
  const [agents, setAgents] = useState<AgentView[]>([]);
  const [records, setRecords] = useState<ActivityView[]>([]);
  const [revision, setRevision] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [expired, setExpired] = useState<string | null>(null);
  // Sessions whose expiry was announced (each once), so an expired grant still listed re-arms no timer.
  const announced = useRef(new Set<string>());

  const refresh = useCallback(() => {
    call("observation.snapshot", { projectId }).then(
      (s) => {
        setAgents((s as unknown as { agents?: AgentView[] }).agents ?? []);
        setRecords(((s as unknown as { activity?: ActivityView[] }).activity ?? []).slice(-FEED));
        setError(null);
      },
      (e: unknown) => setError(message(e)),
    );
    setRevision((r) => r + 1);
  }, [projectId]);

  useEffect(() => {
    refresh();
    return onWork((kind, data) => {
      if (kind === "grant.changed") refresh();
      if (kind === "activity.changed" && typeof data["seq"] === "number") {
        const r = data as unknown as ActivityView;
        setRecords((old) => (old.some((x) => x.seq === r.seq) ? old : [...old, { ...r, time: r.time ?? new Date().toISOString() }].slice(-FEED)));
        setAgents((old) => old.map((a) => (a.principal === r.principal ? { ...a, latestCall: { method: r.method, outcome: r.outcome, code: r.code, time: r.time ?? new Date().toISOString() } } : a)));
      }
    });
  }, [refresh]);

  // A timer on the next expiresAt: when a grant expires the panel says so (role=status) and re-reads.
  useEffect(() => {
    const waiting = agents.filter((a) => !announced.current.has(`${a.session}@${a.expiresAt}`));
    const wait = untilNextExpiry(waiting, Date.now());
    if (wait === null) return;
    const timer = setTimeout(() => {
      const now = expiredAt(waiting, Date.now());
      for (const a of now) announced.current.add(`${a.session}@${a.expiresAt}`);
      if (now.length > 0) setExpired(expiryNote(now));
      refresh();
    }, timerDelay(wait));
    return () => clearTimeout(timer);
  }, [agents, refresh]);

  if (paired) {
    return (
      <div className="panel-body">
        <h2>Agent access</h2>
        <p>A paired tab cannot see or change Agent access: only the browser on the computer that runs Rho (the local person) can connect, list or revoke Agents.</p>
      </div>
    );
  }
  return (
    <div className="panel-body agent">
      {error && <p role="alert">{error}</p>}
      <Connect projectId={projectId} onConnected={refresh} />
      <Agents projectId={projectId} agents={agents} expired={expired} onChanged={refresh} />
      <Activity records={records} />
      <Bindings projectId={projectId} revision={revision} />
    </div>
  );
}
