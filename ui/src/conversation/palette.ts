//! What the composer's palette offers at the caret, worked out from the text alone: a `/mcp:` command being typed (the prompts), a prompt argument's value (a server's suggestions), an `@` word (server resources), or a template placeholder in an `@mcp:` token; and what picking a row writes.

import type { PromptCommand, ResourceRow } from "./ops";

/** The word the caret is in: its start and end offsets and its text. */
export function wordAt(text: string, caret: number): { start: number; end: number; word: string } {
  let start = caret;
  while (start > 0 && !/\s/.test(text.charAt(start - 1))) start--;
  let end = caret;
  while (end < text.length && !/\s/.test(text.charAt(end))) end++;
  return { start, end, word: text.slice(start, end) };
}

export type Ask =
  | { kind: "command"; start: number; end: number; typed: string }
  | { kind: "argument"; start: number; end: number; command: PromptCommand; argument: string; value: string; others: Record<string, string> }
  | { kind: "resource"; start: number; end: number; query: string }
  | { kind: "placeholder"; start: number; end: number; server: string; template: string; argument: string };

/** What to offer at `caret` (null: nothing). `prompts` are the session's slash commands. */
export function askAt(text: string, caret: number, prompts: PromptCommand[]): Ask | null {
  const w = wordAt(text, caret);
  if (w.start === 0 && text.startsWith("/mcp") && caret <= w.end) return { kind: "command", start: 0, end: w.end, typed: w.word };
  if (text.startsWith("/mcp:") && w.start > 0) {
    const head = text.slice(0, text.search(/\s|$/));
    const command = prompts.find((p) => p.command === head);
    if (!command || command.arguments.length === 0) return null;
    const [only] = command.arguments;
    if (command.arguments.length === 1 && only) {
      const start = head.length + 1;
      return { kind: "argument", start, end: text.length, command, argument: only.name, value: text.slice(start), others: {} };
    }
    const eq = w.word.indexOf("=");
    if (eq < 1) return null;
    const argument = w.word.slice(0, eq);
    if (!command.arguments.some((a) => a.name === argument)) return null;
    const others: Record<string, string> = {};
    for (const token of text.slice(head.length).split(/\s+/)) {
      const i = token.indexOf("=");
      if (i > 0 && token !== w.word) others[token.slice(0, i)] = token.slice(i + 1);
    }
    return { kind: "argument", start: w.start + eq + 1, end: w.end, command, argument, value: w.word.slice(eq + 1), others };
  }
  if (w.word.startsWith("@mcp:")) {
    const body = w.word.slice(5);
    const colon = body.indexOf(":");
    const hole = /\{([^}]+)\}/.exec(body);
    if (colon > 0 && hole && hole[1]) {
      const at = w.start + 5 + hole.index;
      return { kind: "placeholder", start: at, end: at + hole[0].length, server: body.slice(0, colon), template: body.slice(colon + 1), argument: hole[1] };
    }
    return null;
  }
  if (w.word.startsWith("@")) return { kind: "resource", start: w.start, end: w.end, query: w.word.slice(1) };
  return null;
}

/** One row the palette shows. `insert` replaces the asked span; `label` and `detail` are what the person reads. */
export interface Row {
  key: string;
  label: string;
  detail: string;
  insert: string;
}

export function commandRows(prompts: PromptCommand[], typed: string): Row[] {
  return prompts
    .filter((p) => p.command.startsWith(typed))
    .map((p) => ({
      key: p.command,
      label: p.command,
      detail: [p.description, p.arguments.length ? `arguments: ${p.arguments.map((a) => (a.required ? `${a.name} (required)` : a.name)).join(", ")}` : ""].filter(Boolean).join(" · "),
      insert: `${p.command} `,
    }));
}

export function resourceRows(rows: ResourceRow[]): Row[] {
  return rows.map((r) => ({
    key: `${r.server} ${r.uri}`,
    label: r.uri,
    detail: `${r.server} · ${r.name}${r.template ? " · template" : ""}`,
    insert: r.template ? r.token : `${r.token} `,
  }));
}

export function valueRows(values: string[]): Row[] {
  return values.map((v) => ({ key: v, label: v, detail: "suggested by the server", insert: v }));
}

/** The text after picking `row` for `ask`, and where the caret goes. */
export function pick(text: string, ask: Ask, row: Row): { text: string; caret: number } {
  const out = text.slice(0, ask.start) + row.insert + text.slice(ask.end);
  return { text: out, caret: ask.start + row.insert.length };
}
