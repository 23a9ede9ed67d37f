//! The composer's palette for Rho's own agent worked out from the text: a command being typed, a prompt argument's value (one argument takes the rest), an `@` word, a template placeholder, and what picking writes; a form's content typed as its fields say.

import { describe, expect, it } from "vitest";
import { content, initial } from "../src/conversation/FormFields";
import type { FormField, PromptCommand } from "../src/conversation/ops";
import { askAt, commandRows, pick, resourceRows, valueRows } from "../src/conversation/palette";

const prompts: PromptCommand[] = [
  { command: "/mcp:ev:args-prompt", server: "ev", prompt: "args-prompt", description: "two", arguments: [{ name: "city", required: true }, { name: "state", required: false }] },
  { command: "/mcp:docs:search", server: "docs", prompt: "search", description: null, arguments: [{ name: "query", required: true }] },
];

describe("the palette at the caret", () => {
  it("offers the prompts while the command is typed, and picking writes it", () => {
    const text = "/mcp:ev:a";
    const ask = askAt(text, text.length, prompts);
    expect(ask).toMatchObject({ kind: "command", typed: "/mcp:ev:a" });
    const rows = commandRows(prompts, "/mcp:ev:a");
    expect(rows.map((r) => r.label)).toEqual(["/mcp:ev:args-prompt"]);
    expect(rows[0]?.detail).toContain("city (required), state");
    expect(pick(text, ask!, rows[0]!)).toEqual({ text: "/mcp:ev:args-prompt ", caret: 20 });
  });

  it("asks for the value of the argument at the caret, with the others typed, and replaces that value alone", () => {
    const text = "/mcp:ev:args-prompt city=Oslo state=Vi";
    const ask = askAt(text, text.length, prompts);
    expect(ask).toMatchObject({ kind: "argument", argument: "state", value: "Vi", others: { city: "Oslo" } });
    expect(pick(text, ask!, valueRows(["Viken"])[0]!).text).toBe("/mcp:ev:args-prompt city=Oslo state=Viken");
    const at = text.indexOf("Oslo") + 2;
    expect(askAt(text, at, prompts)).toMatchObject({ kind: "argument", argument: "city", value: "Oslo" });
  });

  it("takes everything after a one-argument command as its value", () => {
    const text = "/mcp:docs:search how do sessions";
    expect(askAt(text, text.length, prompts)).toMatchObject({ kind: "argument", argument: "query", value: "how do sessions" });
  });

  it("offers resources after @, writes a resource's token with a space and a template's to fill in", () => {
    const text = "summarize @archi";
    const ask = askAt(text, text.length, prompts);
    expect(ask).toMatchObject({ kind: "resource", query: "archi" });
    const rows = resourceRows([
      { server: "ev", uri: "demo://a.md", name: "a", template: false, token: "@mcp:ev:demo://a.md" },
      { server: "ev", uri: "demo://t/{id}", name: "t", template: true, token: "@mcp:ev:demo://t/{id}" },
    ]);
    expect(rows[1]?.detail).toBe("ev · t · template");
    expect(pick(text, ask!, rows[0]!).text).toBe("summarize @mcp:ev:demo://a.md ");
    const filled = pick(text, ask!, rows[1]!).text;
    expect(filled).toBe("summarize @mcp:ev:demo://t/{id}");
    const hole = askAt(filled, filled.length, prompts);
    expect(hole).toMatchObject({ kind: "placeholder", server: "ev", template: "demo://t/{id}", argument: "id" });
    expect(pick(filled, hole!, valueRows(["3"])[0]!).text).toBe("summarize @mcp:ev:demo://t/3");
  });

  it("offers nothing in plain text", () => {
    expect(askAt("hello there", 5, prompts)).toBeNull();
  });
});

describe("a form's content", () => {
  const field = (f: Partial<FormField> & Pick<FormField, "name" | "kind">): FormField => ({ title: f.name, help: null, options: [], required: false, default: null, min: null, max: null, ...f });
  const fields = [field({ name: "n", kind: "integer", default: 42 }), field({ name: "s", kind: "text" }), field({ name: "ok", kind: "boolean" }), field({ name: "m", kind: "multi", default: ["a"] })];

  it("starts from the defaults and sends each field's JSON type, leaving an empty optional field out", () => {
    const v = initial(fields);
    expect(v).toEqual({ n: 42, s: "", ok: false, m: ["a"] });
    expect(content(fields, { ...v, n: "7" })).toEqual({ n: 7, ok: false, m: ["a"] });
    expect(content(fields, { ...v, n: "seven" })).toEqual({ n: "seven", ok: false, m: ["a"] });
  });
});
