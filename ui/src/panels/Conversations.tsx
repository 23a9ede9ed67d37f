//! The Conversations panel: the project's conversations with its Agents, one conversation streaming with its steps, permissions, stop and decisions, and the message box.

import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { Composer } from "../conversation/Composer";
import { callConversation } from "../conversation/ops";
import { useFollowBottom } from "../conversation/follow";
import { MessageView } from "../conversation/MessageView";
import { emptyThread, needsRead, reduce, runningMessage, type Thread } from "../conversation/model";
import type { Conversation, ConversationChanged, Message } from "../conversation/ops";
import { message } from "../conversation/send";
import { backendName, conversationState, endSummary, when } from "../conversation/words";
import { onWork } from "../work/bus";

type Reply = { conversation: Conversation; messages: Message[] };

/** Every page of `conversation.read`, oldest first. */
async function readAll(projectId: string, conversationId: string): Promise<Reply> {
  let page = await callConversation("conversation.read", { projectId, conversationId, limit: 100 });
  const messages = [...page.messages];
  for (let guard = 0; page.nextCursor && guard < 50; guard++) {
    page = await callConversation("conversation.read", { projectId, conversationId, cursor: page.nextCursor, limit: 100 });
    messages.push(...page.messages);
  }
  return { conversation: page.conversation, messages };
}

const isChanged = (d: Record<string, unknown>): d is Record<string, unknown> & ConversationChanged => typeof d.conversationId === "string" && typeof d.change === "string";

function ConversationList({ list, selected, onSelect }: { list: Conversation[]; selected: string | null; onSelect: (id: string | null) => void }) {
  return (
    <nav aria-labelledby="cv-list-title" className="cv-list">
      <h3 id="cv-list-title">This project's conversations</h3>
      <ul className="run-list">
        <li>
          <button type="button" aria-current={selected === null} onClick={() => onSelect(null)}>
            New conversation
          </button>
        </li>
        {list.map((c) => (
          <li key={c.conversationId}>
            <button type="button" aria-current={c.conversationId === selected} onClick={() => onSelect(c.conversationId)} data-testid="cv-item">
              <span className="cv-title">{c.title || "(untitled)"}</span>{" "}
              <span className="muted small">
                {backendName(c.backend)}, {conversationState(c)}, {c.messageCount} message{c.messageCount === 1 ? "" : "s"}, last {when(c.lastAt)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function ConversationsPanel({ projectId, paired }: { projectId: string; paired: boolean }) {
  const [list, setList] = useState<Conversation[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [thread, dispatch] = useReducer(reduce, undefined, emptyThread);
  const [said, setSaid] = useState("");
  const [note, setNote] = useState<string | null>(null);
  // The conversation whose Agent session could not be continued and that the person chose to go on with in a fresh one.
  const [freshFor, setFreshFor] = useState<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const body = useRef<HTMLDivElement>(null);
  useFollowBottom(body, thread);
  const chosen = useRef(false);
  const current = useRef<string | null>(null);
  current.current = selected;
  // One read at a time; an event during it asks for exactly one more.
  const reading = useRef<{ id: string; again: boolean } | null>(null);
  const before = useRef<Thread>(thread);
  const threadRef = useRef(thread);
  threadRef.current = thread;

  const refreshList = useCallback(() => {
    callConversation("conversation.list", { projectId }).then(
      (r) => {
        setList(r.conversations);
        setError(null);
        if (!chosen.current) {
          chosen.current = true;
          setSelected(r.conversations[0]?.conversationId ?? null);
        }
      },
      (e: unknown) => setError(message(e)),
    );
  }, [projectId]);

  const readThread = useCallback(
    (id: string) => {
      if (reading.current?.id === id) {
        reading.current.again = true;
        return;
      }
      reading.current = { id, again: false };
      readAll(projectId, id)
        .then(
          (r) => {
            if (current.current === id) dispatch({ type: "read", ...r });
          },
          (e: unknown) => setNote(`Could not read the conversation: ${message(e)}`),
        )
        .finally(() => {
          const again = reading.current?.id === id && reading.current.again;
          if (reading.current?.id === id) reading.current = null;
          if (again) readThread(id);
        });
    },
    [projectId],
  );

  useEffect(() => {
    dispatch({ type: "select", conversationId: selected });
    if (selected) readThread(selected);
  }, [selected, readThread]);

  useEffect(() => {
    refreshList();
    return onWork((kind, data) => {
      if (kind === "gap") {
        refreshList();
        if (current.current) readThread(current.current);
        return;
      }
      if (kind !== "conversation.changed" || !isChanged(data)) return;
      if (data.change !== "text") refreshList();
      if (data.conversationId !== current.current) return;
      // A delta during a read may be missing from its answer: read once more after it.
      if (data.change === "text" && reading.current?.id === data.conversationId) reading.current.again = true;
      dispatch({ type: "event", event: data });
      if (needsRead(threadRef.current, data)) readThread(data.conversationId);
    });
  }, [refreshList, readThread]);

  // A short summary when a message ends (never the streamed text itself).
  useEffect(() => {
    const was = new Map(before.current.messages.map((m) => [m.messageId, m.state]));
    for (const m of thread.messages) {
      if (was.get(m.messageId) === "running" && m.state !== "running") setSaid(endSummary(m, thread.conversation?.backend ?? ""));
    }
    before.current = thread;
  }, [thread]);

  const conversation = selected ? (thread.conversation ?? list?.find((c) => c.conversationId === selected) ?? null) : null;
  const running = runningMessage(thread);
  const focusBox = useCallback(() => box.current?.focus(), []);

  return (
    <div className="panel-body conversations" ref={body}>
      <h2 id="cv-heading">Conversations</h2>
      {error && <p role="alert">Could not list the conversations: {error}</p>}
      {list === null ? (
        <p className="muted">Loading the conversations…</p>
      ) : (
        <ConversationList
          list={list}
          selected={selected}
          onSelect={(id) => {
            chosen.current = true;
            setSelected(id);
          }}
        />
      )}
      <p className="sr-only" role="log" aria-live="polite" aria-label="Answers ended" data-testid="cv-announce">
        {said}
      </p>
      {list !== null && (
        <section className="cv-thread" aria-labelledby="cv-thread-title">
          <h3 id="cv-thread-title">{conversation ? conversation.title || "(untitled)" : "New conversation"}</h3>
          {conversation && (
            <p className="muted small">
              With {backendName(conversation.backend)}, {conversationState(conversation)}; started {when(conversation.startedAt)}.
            </p>
          )}
          {conversation?.state === "needs-choice" && (
            <div className="cv-choice" data-testid="cv-choice">
              <p>{backendName(conversation.backend)} could not load this conversation's session, so it cannot go on with the same context. Rho never starts a fresh context silently: choose.</p>
              {conversation.note && <p>{conversation.note}</p>}
              <p className="toolbar">
                <button
                  type="button"
                  aria-pressed={freshFor === conversation.conversationId}
                  onClick={() => {
                    setFreshFor(conversation.conversationId);
                    focusBox();
                  }}
                >
                  Continue in a fresh session with a summary
                </button>
                <button type="button" onClick={() => setSelected(null)}>
                  Start a new conversation instead
                </button>
              </p>
            </div>
          )}
          <div className="cv-messages" data-testid="cv-messages">
            {thread.messages.map((m) => (
              <MessageView
                key={m.messageId}
                projectId={projectId}
                conversationId={conversation?.conversationId ?? ""}
                backend={conversation?.backend ?? ""}
                m={m}
                paired={paired}
                onPermission={(permission) => dispatch({ type: "permission", permission })}
                onDecided={(_, decision) => dispatch({ type: "decision", decision })}
                reread={() => selected && readThread(selected)}
                focusBox={focusBox}
              />
            ))}
          </div>
          <Composer
            ref={box}
            projectId={projectId}
            conversation={conversation}
            running={running}
            fresh={conversation !== null && freshFor === conversation.conversationId}
            onStarted={(c, m) => {
              chosen.current = true;
              setSelected(c.conversationId);
              dispatch({ type: "message", message: m, conversation: c });
              refreshList();
            }}
            onSent={(m) => {
              dispatch({ type: "message", message: m });
              setFreshFor(null);
              if (selected) readThread(selected);
            }}
            onNote={setNote}
          />
          <p role="status" className="note" data-testid="cv-note">
            {note}
          </p>
        </section>
      )}
    </div>
  );
}
