//! Syntax colours (AA contrast on the editor's white) and the language a path wants: R or Python.

import { python } from "@codemirror/lang-python";
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { r } from "@codemirror/legacy-modes/mode/r";
import type { Extension } from "@codemirror/state";
import { tags as t } from "@lezer/highlight";

const style = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.operatorKeyword], color: "#6a1b9a" },
  { tag: [t.string, t.special(t.string)], color: "#a31515" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "#3d6b35", fontStyle: "italic" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "#0b5394" },
  { tag: [t.function(t.variableName), t.definition(t.variableName)], color: "#7a4100" },
  { tag: [t.operator, t.punctuation], color: "#333333" },
  { tag: t.invalid, color: "#b00020", textDecoration: "underline" },
]);

export function languageFor(path: string): Extension[] {
  const lower = path.toLowerCase();
  const hl = syntaxHighlighting(style);
  if (lower.endsWith(".r") || lower.endsWith(".rmd")) return [StreamLanguage.define(r), hl];
  if (lower.endsWith(".py")) return [python(), hl];
  return [hl];
}
