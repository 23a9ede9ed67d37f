//! A question an MCP server asks through Rho's own agent: its form (fields from the requested schema) or its request to use the person's model (server, messages, token ceiling, model), titled with the server, answered with accept / decline / cancel; a refused answer names its field and the form stays open.

import { useEffect, useRef, useState } from "react";
import { ApiError } from "../api/errors";
import { FormFields, content, initial } from "./FormFields";
import type { Values } from "./FormFields";
import { callConversation } from "./ops";
import type { Permission, Question } from "./ops";
import { message } from "./send";

type Action = "accept" | "decline" | "cancel";

export function QuestionCard({
  projectId,
  conversationId,
  permission,
  onChosen,
  onStale,
  returnFocus,
}: {
  projectId: string;
  conversationId: string;
  permission: Permission;
  onChosen: (p: Permission) => void;
  onStale: () => void;
  returnFocus: () => void;
}) {
  const card = useRef<HTMLElement>(null);
  const [q, setQ] = useState<Question | null>(null);
  const [values, setValues] = useState<Values>({});
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [wrong, setWrong] = useState<string | null>(null);
  // Counts refusals, so the field named is focused again after each (once its control is enabled again).
  const [refusals, setRefusals] = useState(0);
  const requestId = permission.requestId;

  // The details are read once per question: a re-render (the message streaming) never resets what the person typed.
  const stale = useRef(onStale);
  stale.current = onStale;
  useEffect(() => {
    let live = true;
    callConversation("conversation.question", { projectId, conversationId, requestId })
      .then((r) => {
        if (!live) return;
        setQ(r.question);
        setValues(initial(r.question.fields));
      })
      .catch((e) => {
        if (!live) return;
        if (e instanceof ApiError && e.code === "conflict") stale.current();
        setProblem(`This question cannot be shown: ${message(e)}`);
      });
    return () => {
      live = false;
    };
  }, [projectId, conversationId, requestId]);
  useEffect(() => {
    card.current?.focus();
  }, [requestId]);

  useEffect(() => {
    if (!wrong || busy) return;
    const at = `[data-field="${CSS.escape(wrong)}"]`;
    card.current?.querySelector<HTMLElement>(`${at} input, ${at} select`)?.focus();
  }, [wrong, busy, refusals]);

  const id = `cv-q-${requestId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const answer = async (action: Action) => {
    setBusy(true);
    setProblem(null);
    setWrong(null);
    try {
      const body = action === "accept" && q?.kind === "form" ? content(q.fields, values) : null;
      const r = await callConversation("conversation.answer", { projectId, conversationId, requestId, action, content: body });
      onChosen(r.permission);
      returnFocus();
    } catch (e) {
      if (e instanceof ApiError && e.code === "conflict") {
        setProblem("This question is no longer open (it was answered elsewhere, or the message ended).");
        onStale();
      } else if (e instanceof ApiError && e.code === "invalid") {
        const field = /field `([^`]+)`/.exec(e.message)?.[1] ?? null;
        setWrong(field);
        setProblem(`Not sent: ${e.message}`);
        setRefusals((n) => n + 1);
      } else setProblem(`Not sent: ${message(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const sampling = permission.kind === "sampling";
  const server = q?.server ?? permission.title.split(" ")[0];
  return (
    <section ref={card} className="cv-permission cv-question" tabIndex={-1} aria-labelledby={`${id}-h`} aria-describedby={`${id}-d`} data-testid={sampling ? "cv-sampling" : "cv-form"}>
      <h4 id={`${id}-h`}>{sampling ? `The MCP server ${server} asks to use your model` : `A form from the MCP server ${server}`}</h4>
      {sampling ? (
        <p id={`${id}-d`}>
          {q ? `${q.messages} message${q.messages === 1 ? "" : "s"}, a ceiling of ${q.maxTokens} tokens, answered by ${q.model}. Allowing it spends your tokens (counted as servers' sampling).` : permission.title}
        </p>
      ) : (
        <p id={`${id}-d`}>{q?.message ?? permission.title}</p>
      )}
      {q?.kind === "form" && (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void answer("accept");
          }}
        >
          <FormFields idBase={id} fields={q.fields} values={values} set={(name, v) => setValues((old) => ({ ...old, [name]: v }))} wrong={wrong} disabled={busy} />
          <div className="cv-options" role="group" aria-label="Your answer">
            <button type="submit" className="cv-allow" disabled={busy}>
              Submit
            </button>
            <button type="button" className="cv-reject" disabled={busy} onClick={() => void answer("decline")}>
              Decline
            </button>
            <button type="button" className="cv-reject" disabled={busy} onClick={() => void answer("cancel")}>
              Cancel and stop
            </button>
          </div>
        </form>
      )}
      {sampling && q && (
        <div className="cv-options" role="group" aria-label="Your answer">
          <button type="button" className="cv-allow" disabled={busy} onClick={() => void answer("accept")}>
            Allow
          </button>
          <button type="button" className="cv-reject" disabled={busy} onClick={() => void answer("decline")}>
            Refuse
          </button>
          <button type="button" className="cv-reject" disabled={busy} onClick={() => void answer("cancel")}>
            Refuse and stop
          </button>
        </div>
      )}
      {problem && <p role="alert">{problem}</p>}
    </section>
  );
}
