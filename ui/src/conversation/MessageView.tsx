//! One message: the person's prompt, the retries announced, the Agent's parts, the permission it waits on (or what earlier ones came to), its end in words, the tokens Rho's own agent spent, and decisions once it ended.

import type { Decision, Message, Permission } from "./ops";
import { Decide, Decisions } from "./Decide";
import { Parts } from "./Parts";
import { PermissionCard } from "./PermissionCard";
import { QuestionCard } from "./QuestionCard";
import { backendName, messageState, permissionOutcome, when, who } from "./words";

export interface MessageProps {
  projectId: string;
  conversationId: string;
  backend: string;
  m: Message;
  paired: boolean;
  onPermission: (p: Permission) => void;
  onDecided: (messageId: string, d: Decision) => void;
  reread: () => void;
  focusBox: () => void;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function cutWords(cut: NonNullable<Message["cut"]>): string {
  const bits: string[] = [];
  if (cut.textBytes) bits.push(`${cut.textBytes.toLocaleString("en")} bytes of text`);
  if (cut.steps) bits.push(`${cut.steps} step${cut.steps === 1 ? "" : "s"}`);
  if (cut.outputs) bits.push(`the output of ${cut.outputs} command${cut.outputs === 1 ? "" : "s"}`);
  const keys = cut.limits?.length ? ` (${cut.limits.join(", ")})` : "";
  return bits.length ? `A limit dropped ${bits.join(", ")} from this record${keys}.` : keys ? `Limits shortened this record${keys}.` : "";
}

/** Tokens per purpose, as a person reads them (Rho's own agent). */
function spendWords(m: Message): string {
  const spend = m.spend ?? [];
  if (spend.length === 0) return "";
  const name = (p: string) => (p === "turn" ? "this answer" : p === "mcp_sampling" ? "servers' sampling" : p);
  return `Tokens: ${spend.map((s) => `${name(s.purpose)} ${s.inputTokens.toLocaleString("en")} in, ${s.outputTokens.toLocaleString("en")} out`).join("; ")}.`;
}

function keptWords(m: Message): string {
  const kept = m.kept ?? [];
  const left = m.keptOmitted ?? [];
  if (kept.length === 0 && left.length === 0) return "";
  const files = kept.length ? `Kept ${kept.length === 1 ? "1 file version" : `${kept.length} file versions`}: ${kept.map((f) => f.path).join(", ")}.` : "";
  const out = left.length ? ` Not kept: ${left.map((o) => `${o.path} (${o.reason})`).join(", ")}.` : "";
  return `${files}${out}`.trim();
}

export function MessageView({ projectId, conversationId, backend, m, paired, onPermission, onDecided, reread, focusBox }: MessageProps) {
  const agent = backendName(backend);
  const pending = m.state === "running" ? m.permissions.filter((p) => p.state === "pending") : [];
  const settled = m.permissions.filter((p) => !pending.includes(p));
  const domId = `cv-msg-${m.messageId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return (
    <article className={`cv-message cv-m-${m.state}`} aria-labelledby={`${domId}-h`} data-testid="cv-message">
      <h3 id={`${domId}-h`} className="cv-who">
        {capital(who(m.sentBy))} <span className="muted small">{when(m.sentAt)}</span>
      </h3>
      <div className="cv-prompt">{m.text}</div>
      {m.contexts.length > 0 && <p className="muted small">With {m.contexts.length === 1 ? "1 context" : `${m.contexts.length} contexts`}: {m.contexts.join(", ")}</p>}
      <div className="cv-answer">
        <p className="cv-agent">{agent}</p>
        {(m.retries ?? []).map((r, i) => (
          <p key={i} className="muted small" data-testid="cv-retry">
            {capital(r)}
          </p>
        ))}
        <Parts parts={m.parts} at={backend === "rho" ? { projectId, conversationId } : undefined} />
        {m.parts.length === 0 && m.state === "running" && <p className="muted">Waiting for the first words…</p>}
        {settled.length > 0 && (
          <ul className="cv-asked" aria-label="Permissions and questions asked">
            {settled.map((p) => (
              <li key={p.requestId}>
                Asked: {p.title.replace(/[:.]\s*$/, "")}: {permissionOutcome(p)}
              </li>
            ))}
          </ul>
        )}
        {pending.map((p) =>
          p.kind === "form" || p.kind === "sampling" ? (
            <QuestionCard key={p.requestId} projectId={projectId} conversationId={conversationId} permission={p} onChosen={onPermission} onStale={reread} returnFocus={focusBox} />
          ) : (
            <PermissionCard key={p.requestId} projectId={projectId} conversationId={conversationId} permission={p} agent={agent} onChosen={onPermission} onStale={reread} returnFocus={focusBox} />
          ),
        )}
      </div>
      <p className={`cv-end${m.state === "unknown" ? " cv-unknown" : ""}`} data-testid="cv-state">
        {m.state === "running" ? <span className="muted">{messageState(m)}</span> : <strong>{messageState(m)}</strong>}
        {m.endedAt && m.state === "ended" ? <span className="muted small"> {when(m.endedAt)}</span> : null}
      </p>
      {m.cut && <p className="muted small">{cutWords(m.cut)}</p>}
      {spendWords(m) && (
        <p className="muted small" data-testid="cv-spend">
          {spendWords(m)}
        </p>
      )}
      {keptWords(m) && (
        <p className="muted small" data-testid="cv-kept">
          {keptWords(m)}
        </p>
      )}
      {m.state === "ended" && (
        <>
          <Decisions decisions={m.decisions} />
          <Decide projectId={projectId} conversationId={conversationId} m={m} paired={paired} onDecided={(d) => onDecided(m.messageId, d)} />
        </>
      )}
    </article>
  );
}
