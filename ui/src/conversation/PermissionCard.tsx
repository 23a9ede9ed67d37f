//! The permission the Agent waits on: it takes focus, offers exactly the Agent's options (buttons named by them), and gives focus back to the message box after a choice.

import { useEffect, useRef, useState } from "react";
import { ApiError } from "../api/errors";
import { callConversation } from "./ops";
import type { Permission } from "./ops";
import { message } from "./send";

export function PermissionCard({
  projectId,
  conversationId,
  permission,
  agent,
  onChosen,
  onStale,
  returnFocus,
}: {
  projectId: string;
  conversationId: string;
  permission: Permission;
  agent: string;
  onChosen: (p: Permission) => void;
  onStale: () => void;
  returnFocus: () => void;
}) {
  const card = useRef<HTMLElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    card.current?.focus();
  }, [permission.requestId]);

  const choose = async (optionId: string) => {
    setBusy(true);
    setProblem(null);
    try {
      const r = await callConversation("conversation.permission", { projectId, conversationId, requestId: permission.requestId, optionId });
      onChosen(r.permission);
      returnFocus();
    } catch (e) {
      if (e instanceof ApiError && e.code === "conflict") {
        setProblem("This request is no longer pending (it was answered elsewhere, or the message ended).");
        onStale();
      } else setProblem(`Not sent: ${message(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const id = `cv-perm-${permission.requestId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return (
    <section ref={card} className="cv-permission" tabIndex={-1} aria-labelledby={`${id}-h`} aria-describedby={`${id}-d`} data-testid="cv-permission">
      <h4 id={`${id}-h`}>{agent} asks permission</h4>
      <p id={`${id}-d`}>{permission.title}</p>
      <div className="cv-options" role="group" aria-label="The Agent's choices">
        {permission.options.map((o) => (
          <button key={o.optionId} type="button" disabled={busy} className={o.kind.startsWith("reject") ? "cv-reject" : "cv-allow"} onClick={() => void choose(o.optionId)}>
            {o.name}
          </button>
        ))}
      </div>
      {problem && <p role="alert">{problem}</p>}
    </section>
  );
}
