//! The message box: Enter sends, Shift+Enter is a new line; the backend choice for a new conversation (Claude Code, Codex, Claude Code's CLI, Rho's own agent); Stop while a message runs; `unavailable` shown with its install command or what the model is missing.

import { forwardRef, useRef, useState, type KeyboardEvent } from "react";
import { ApiError } from "../api/errors";
import { bodyKey, draftFor, type Draft } from "./model";
import { callConversation } from "./ops";
import type { Backend, Conversation, Message } from "./ops";
import { message, missingOf, retrying, type Missing } from "./send";
import { BACKEND_NAME, backendName } from "./words";
import { Surfaces, type Report } from "./Surfaces";
import { PaletteList, usePalette } from "./Palette";

export interface ComposerProps {
  projectId: string;
  conversation: Conversation | null;
  running: Message | null;
  /** The person chose to continue a conversation that needs a choice in a fresh Agent session. */
  fresh: boolean;
  onStarted: (c: Conversation, m: Message) => void;
  onSent: (m: Message) => void;
  onNote: (n: string) => void;
}

export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer({ projectId, conversation, running, fresh, onStarted, onSent, onNote }, box) {
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const [backend, setBackend] = useState<Backend>("claude");
  // Claude Code opens in Auto unless the person chooses; "default" is its mode that asks before commands and edits.
  const [ask, setAsk] = useState(false);
  const [busy, setBusy] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [missing, setMissing] = useState<Missing | null>(null);
  const draft = useRef<Draft | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const agent = conversation ? backendName(conversation.backend) : BACKEND_NAME[backend];
  const choosing = conversation?.state === "needs-choice";
  const blocked = running !== null || (choosing && !fresh);
  const palette = usePalette(projectId, conversation, text, caret);
  const pickRow = (i: number) => {
    const next = palette.choose(i);
    if (!next) return;
    setText(next.text);
    setCaret(next.caret);
    const el = typeof box === "function" ? null : box?.current;
    requestAnimationFrame(() => el?.setSelectionRange(next.caret, next.caret));
  };

  /** `/mcp` and `/doctor` ask the service about this conversation; nothing is sent to the Agent. */
  const surface = async (which: "/mcp" | "/doctor") => {
    if (!conversation) return;
    setBusy(true);
    try {
      const req = { projectId, conversationId: conversation.conversationId };
      setReport(which === "/mcp" ? { kind: "mcp", mcp: await callConversation("conversation.mcp", req) } : { kind: "doctor", rows: (await callConversation("conversation.doctor", req)).rows });
      setText("");
      onNote(which === "/mcp" ? "MCP servers shown below the message box." : "Health shown below the message box.");
    } catch (e) {
      onNote(`${which} failed: ${message(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const send = async () => {
    const typed = text.trim();
    if (conversation && (typed === "/mcp" || typed === "/doctor")) return surface(typed);
    if (!text.trim() || busy || blocked) return;
    const mode = !conversation && backend === "claude" && ask ? "default" : null;
    const target = conversation ? `${conversation.conversationId}:${choosing ? "fresh" : ""}` : `new:${backend}:${mode ?? ""}`;
    // The same body keeps its changeId, so sending again after a lost reply sends nothing twice.
    draft.current = draftFor(draft.current, bodyKey(target, text), () => `conv-${crypto.randomUUID()}`);
    const changeId = draft.current.changeId;
    setBusy(true);
    setMissing(null);
    onNote(`Sending to ${agent}…`);
    try {
      if (conversation) {
        const freshSession = choosing ? { freshSession: true } : {};
        const r = await retrying(() => callConversation("conversation.send", { projectId, conversationId: conversation.conversationId, changeId, text, ...freshSession }));
        onSent(r.message);
      } else {
        const r = await retrying(() => callConversation("conversation.start", { projectId, changeId, text, backend, ...(mode ? { mode } : {}) }));
        onStarted(r.conversation, r.message);
      }
      draft.current = null;
      setText("");
      onNote(`Sent to ${agent}.`);
    } catch (e) {
      const m = missingOf(e);
      if (m) setMissing(m);
      onNote(e instanceof ApiError ? `Not sent: ${message(e)}` : `Not sent (no answer from Rho): ${message(e)}. Send again: the same message is not sent twice.`);
    } finally {
      setBusy(false);
    }
  };

  const stop = async () => {
    if (!conversation) return;
    setStopping(true);
    onNote(`Asking ${agent} to stop…`);
    try {
      const r = await callConversation("conversation.stop", { projectId, conversationId: conversation.conversationId });
      onSent(r.message);
      onNote(r.message.state === "running" ? `${agent} has not confirmed the stop yet.` : `${agent} stopped.`);
    } catch (e) {
      onNote(`Stop refused: ${message(e)}`);
    } finally {
      setStopping(false);
    }
  };

  const keys = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (palette.open && !e.nativeEvent.isComposing) {
      const by = e.key === "ArrowDown" ? 1 : e.key === "ArrowUp" ? -1 : 0;
      if (by) {
        e.preventDefault();
        palette.move(by);
        return;
      }
      if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
        e.preventDefault();
        pickRow(palette.active);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        palette.close();
        return;
      }
    }
    if (e.key !== "Enter" || e.shiftKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    void send();
  };

  const help = running
    ? `${agent} is answering; the next message waits for it (or stop it).`
    : choosing
      ? fresh
        ? `Your next message starts a fresh ${agent} session, given a summary of this conversation. Enter sends.`
        : "This conversation cannot continue its Agent session; choose above."
      : conversation
        ? conversation.backend === "rho"
          ? "Enter sends, Shift+Enter starts a new line; /mcp lists the MCP servers, /doctor checks the model, MCP, R and Python; /mcp: runs a server's prompt, @ attaches a server resource."
          : "Enter sends, Shift+Enter starts a new line; /mcp lists the MCP servers, /doctor checks the model, MCP, R and Python."
        : "Enter sends, Shift+Enter starts a new line.";
  return (
    <div className="cv-composer">
      {!conversation && (
        <fieldset className="cv-backend">
          <legend>Agent for the new conversation</legend>
          {(Object.keys(BACKEND_NAME) as Backend[]).map((b) => (
            <label key={b} className="cv-radio">
              <input type="radio" name="cv-backend" value={b} checked={backend === b} onChange={() => setBackend(b)} /> {BACKEND_NAME[b]}
            </label>
          ))}
          {backend === "claude" && (
            <label className="cv-radio">
              <input type="checkbox" checked={ask} onChange={(e) => setAsk(e.target.checked)} /> Ask me before each command and edit (instead of Auto)
            </label>
          )}
          {backend === "codex" && <p className="muted small">Codex opens in its own auto-review mode.</p>}
          {backend === "claude-cli" && <p className="muted small">Claude Code's own CLI, one run per message.</p>}
          {backend === "rho" && <p className="muted small">Your model from Rho's config file, with this project's tools and your MCP servers.</p>}
        </fieldset>
      )}
      <label htmlFor="cv-box">{conversation ? `Message to ${agent}` : `First message to ${agent}`}</label>
      <textarea
        id="cv-box"
        ref={box}
        rows={2}
        value={text}
        aria-describedby="cv-box-help"
        aria-controls={palette.open ? "cv-palette" : undefined}
        aria-activedescendant={palette.open ? `cv-palette-${palette.active}` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setCaret(e.target.selectionStart);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={keys}
      />
      <PaletteList palette={palette} onPick={pickRow} />
      <p className="sr-only" aria-live="polite">
        {palette.open ? `${palette.rows.length} suggestion${palette.rows.length === 1 ? "" : "s"}: arrow keys to move, Enter or Tab to pick, Escape to close.` : ""}
      </p>
      <p id="cv-box-help" className="muted small">
        {help}
      </p>
      <div className="toolbar cv-actions">
        <button type="button" onClick={() => void send()} disabled={busy || (blocked && !/^\/(mcp|doctor)$/.test(text.trim())) || !text.trim()}>
          Send
        </button>
        {running && (
          <button type="button" onClick={() => void stop()} disabled={stopping}>
            Stop
          </button>
        )}
      </div>
      {report && <Surfaces report={report} onClose={() => setReport(null)} />}
      {missing && (
        <div role="alert" className="cv-missing" data-testid="cv-missing">
          <p>
            {agent} cannot start here: {missing.missing.join(", ")} {missing.missing.length === 1 ? "is" : "are"} not installed. Rho installs nothing by itself; to install,
            run:
          </p>
          {missing.install ? <pre className="cv-install">{missing.install}</pre> : <p>{missing.message}</p>}
        </div>
      )}
    </div>
  );
});
