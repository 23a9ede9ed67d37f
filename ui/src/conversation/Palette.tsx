//! The composer's palette for Rho's own agent: while typing `/mcp:` it lists the servers' prompts, in a prompt's argument it shows the server's suggestions (one request in flight, answers reused), after `@` it lists server resources (resources first, templates marked). Arrow keys move, Enter or Tab picks, Escape closes; the list is a listbox the message box points at.

import { useEffect, useMemo, useRef, useState } from "react";
import { callConversation } from "./ops";
import type { Conversation, PromptCommand } from "./ops";
import { askAt, commandRows, pick, resourceRows, valueRows, type Ask, type Row } from "./palette";

export interface PaletteState {
  ask: Ask | null;
  rows: Row[];
  /** Rows not shown (type more to narrow). */
  more: number;
  active: number;
  open: boolean;
  move: (by: number) => void;
  choose: (i: number) => { text: string; caret: number } | null;
  close: () => void;
}

const PROMPTS_FRESH_MS = 10000;
/** One empty list, so an effect that depends on the prompts does not run again on every render. */
const NO_PROMPTS: PromptCommand[] = [];
/** Rows shown at once: typing more narrows the list (it never scrolls). */
const SHOWN = 8;

export function usePalette(projectId: string, conversation: Conversation | null, text: string, caret: number): PaletteState {
  const rho = conversation?.backend === "rho" ? conversation.conversationId : null;
  const [prompts, setPrompts] = useState<{ id: string; at: number; list: PromptCommand[] } | null>(null);
  const [rows, setRows] = useState<Row[]>([]);
  const [active, setActive] = useState(0);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  const answers = useRef(new Map<string, string[]>());
  const inFlight = useRef(false);
  const wanted = useRef<string | null>(null);
  const list = prompts && prompts.id === rho ? prompts.list : NO_PROMPTS;
  const ask = useMemo(() => (rho ? askAt(text, caret, list) : null), [rho, text, caret, list]);
  const askKey = ask ? `${ask.kind}:${ask.start}:${text.slice(ask.start, ask.end)}` : null;

  // The session's prompts, read when a `/` starts the message and again when they may have changed.
  useEffect(() => {
    if (!rho || !text.startsWith("/")) return;
    if (prompts && prompts.id === rho && Date.now() - prompts.at < PROMPTS_FRESH_MS) return;
    let live = true;
    callConversation("conversation.prompts", { projectId, conversationId: rho })
      .then((r) => live && setPrompts({ id: rho, at: Date.now(), list: r.prompts }))
      .catch(() => live && setPrompts({ id: rho, at: Date.now(), list: [] }));
    return () => {
      live = false;
    };
  }, [projectId, rho, text, prompts]);

  useEffect(() => {
    setActive(0);
    if (!ask || !rho) {
      setRows([]);
      return;
    }
    if (ask.kind === "command") {
      setRows(commandRows(list, ask.typed));
      return;
    }
    let live = true;
    const complete = (key: string, f: () => Promise<string[]>) => {
      const held = answers.current.get(key);
      if (held) {
        setRows(valueRows(held));
        return;
      }
      wanted.current = key;
      if (inFlight.current) return;
      inFlight.current = true;
      f()
        .catch(() => [] as string[])
        .then((values) => {
          answers.current.set(key, values);
          inFlight.current = false;
          if (live && wanted.current === key) setRows(valueRows(values));
        });
    };
    const timer = setTimeout(() => {
      if (ask.kind === "resource") {
        callConversation("conversation.resources", { projectId, conversationId: rho, query: ask.query })
          .then((r) => live && setRows(resourceRows(r.resources)))
          .catch(() => live && setRows([]));
      } else if (ask.kind === "argument") {
        const { command, argument, value, others } = ask;
        complete(`p|${command.command}|${argument}|${value}`, () =>
          callConversation("conversation.complete", { projectId, conversationId: rho, server: command.server, prompt: command.prompt, argument, value, others }).then((r) => r.values),
        );
      } else if (ask.kind === "placeholder") {
        const { server, template, argument } = ask;
        complete(`t|${server}|${template}|${argument}`, () =>
          callConversation("conversation.complete", { projectId, conversationId: rho, server, uriTemplate: template, argument, value: "" }).then((r) => r.values),
        );
      }
    }, 120);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // askKey names everything the rows depend on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [askKey, rho, projectId, list]);

  const open = rows.length > 0 && askKey !== null && closedFor !== askKey;
  const shown = rows.slice(0, SHOWN);
  return {
    ask,
    rows: shown,
    more: rows.length - shown.length,
    active,
    open,
    move: (by) => setActive((a) => (shown.length ? (a + by + shown.length) % shown.length : 0)),
    choose: (i) => (ask && rows[i] ? pick(text, ask, rows[i]) : null),
    close: () => setClosedFor(askKey),
  };
}

export function PaletteList({ palette, onPick }: { palette: PaletteState; onPick: (i: number) => void }) {
  if (!palette.open) return null;
  const what = palette.ask?.kind === "resource" ? "Server resources" : palette.ask?.kind === "command" ? "MCP prompts" : "Suggestions from the server";
  return (
    <div className="cv-palette" data-testid="cv-palette">
    <ul id="cv-palette" role="listbox" aria-label={what}>
      {palette.rows.map((r, i) => (
        <li
          key={r.key}
          id={`cv-palette-${i}`}
          role="option"
          aria-selected={i === palette.active}
          className={i === palette.active ? "cv-palette-active" : undefined}
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(i);
          }}
        >
          <span className="cv-palette-label">{r.label}</span>
          {r.detail && <span className="cv-palette-detail"> {r.detail}</span>}
        </li>
      ))}
    </ul>
    {palette.more > 0 && <p className="muted small">{palette.more} more: type more to narrow the list.</p>}
    </div>
  );
}
