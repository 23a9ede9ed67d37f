//! Decisions on an ended message: the earlier ones listed, and (local browser only) accepted or needs changes with a required note, superseding the newest.

import { useId, useRef, useState, type FormEvent } from "react";
import { bodyKey, draftFor, type Draft } from "./model";
import { callConversation } from "./ops";
import type { Decision, DecisionKind, Message } from "./ops";
import { message, retrying } from "./send";
import { when, who } from "./words";

const PAIRED = "Only the local browser on this computer records decisions; this is a paired tab.";
const NAME: Record<DecisionKind, string> = { accepted: "Accepted", "needs-changes": "Needs changes" };

export function Decisions({ decisions }: { decisions: Decision[] }) {
  if (decisions.length === 0) return null;
  const superseded = new Set(decisions.map((d) => d.supersedes).filter(Boolean));
  return (
    <ul className="cv-decisions" aria-label="Decisions on this answer">
      {decisions.map((d) => (
        <li key={d.decisionId} className={superseded.has(d.decisionId) ? "cv-superseded" : undefined}>
          <strong>{NAME[d.decision] ?? d.decision}</strong> by {who(d.by)}, {when(d.at)}
          {superseded.has(d.decisionId) ? " (superseded)" : ""}
          {d.note ? `: ${d.note}` : ""}
          {d.resources.length > 0 && <span className="muted"> (keeps {d.resources.length === 1 ? "1 file version" : `${d.resources.length} file versions`})</span>}
        </li>
      ))}
    </ul>
  );
}

export function Decide({ projectId, conversationId, m, paired, onDecided }: { projectId: string; conversationId: string; m: Message; paired: boolean; onDecided: (d: Decision) => void }) {
  const id = useId();
  const [kind, setKind] = useState<DecisionKind>("accepted");
  const [note, setNote] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const draft = useRef<Draft | null>(null);
  const newest = m.decisions[m.decisions.length - 1];
  const noteNeeded = kind === "needs-changes" && !note.trim();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (paired || noteNeeded || busy) return;
    const body = { decision: kind, note: note.trim() || null, supersedes: newest?.decisionId ?? null };
    draft.current = draftFor(draft.current, bodyKey(m.messageId, JSON.stringify(body)), () => `decide-${crypto.randomUUID()}`);
    const changeId = draft.current.changeId;
    setBusy(true);
    try {
      const r = await retrying(() => callConversation("conversation.decide", { projectId, conversationId, messageId: m.messageId, changeId, ...body }));
      draft.current = null;
      setNote("");
      setSaid(`Recorded: ${NAME[r.decision.decision]}.`);
      onDecided(r.decision);
    } catch (err) {
      setSaid(`Not recorded: ${message(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="cv-decide">
      <summary>{newest ? "Change the decision on this answer" : "Decide on this answer"}</summary>
      <form onSubmit={(e) => void submit(e)}>
        <fieldset disabled={paired || busy}>
          <legend>This answer is</legend>
          {(["accepted", "needs-changes"] as const).map((k) => (
            <label key={k} className="cv-radio">
              <input type="radio" name={`${id}-kind`} value={k} checked={kind === k} onChange={() => setKind(k)} /> {NAME[k]}
            </label>
          ))}
          <label htmlFor={`${id}-note`}>Note{kind === "needs-changes" ? " (required: what needs to change)" : " (optional)"}</label>
          <textarea id={`${id}-note`} rows={2} value={note} required={kind === "needs-changes"} onChange={(e) => setNote(e.target.value)} />
          <button type="submit" disabled={noteNeeded}>
            Record the decision
          </button>
        </fieldset>
        {paired && <p className="muted">{PAIRED}</p>}
        <p role="status" className="note">
          {said}
        </p>
      </form>
    </details>
  );
}
