// The floor page: CodeMirror 6 at the app's pinned version with the app's extensions chosen by ?ext= (comma list, or `app` for all), its edits sent on a WebSocket echo.
import { defaultKeymap } from "@codemirror/commands";
import { EditorState, type Extension } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";
import { languageFor } from "../../../ui/src/panels/highlight";
import { authorMarks } from "../../../ui/src/panels/marks";
import { directTyping, Sent } from "../../../ui/src/panels/typing";

const want = new Set((new URLSearchParams(location.search).get("ext") ?? "none").split(","));
const has = (k: string) => want.has("app") || want.has(k);
const ws = new WebSocket(`ws://${location.host}/ws`);
let id = 1;
/** An edit as the app sends it: one call message on the socket. */
const send = (edits: unknown) => {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ id: id++, op: "document.edit", body: { edits } }));
};
const exts: Extension[] = [EditorState.lineSeparator.of("\n")];
if (has("lines")) exts.push(lineNumbers());
if (has("marks")) exts.push(authorMarks);
if (has("lang")) exts.push(languageFor("analysis.R"));
if (has("wrap")) exts.push(EditorView.lineWrapping);
// With `typing` the edit leaves at beforeinput (the app's direct typing), else from the update listener.
if (has("typing")) exts.push(directTyping((c) => send(c.toJSON())));
if (has("keymap")) exts.push(keymap.of(defaultKeymap));
exts.push(EditorView.contentAttributes.of({ "aria-label": "Editor: analysis.R" }));
exts.push(
  EditorView.updateListener.of((u) => {
    for (const tr of u.transactions) if (tr.docChanged && !tr.annotation(Sent)) send(tr.changes.toJSON());
  }),
);
// `css`: the app's sizing of the editor (a flex column filling the page); `contain`: the editor its own layout root.
const style = document.createElement("style");
style.textContent = [
  has("css") ? "html,body{margin:0;height:100%} #host{height:100vh;display:flex;flex-direction:column} .cm-host{flex:1;min-height:12rem;overflow:auto} .cm-host .cm-editor{height:100%}" : "",
  want.has("contain") ? ".cm-host .cm-editor{contain:strict}" : "",
].join("\n");
document.head.append(style);
const inner = document.createElement("div");
inner.className = "cm-host";
document.getElementById("host")?.append(inner);
const doc = '# Fits response ~ dose.\nd <- read.csv("data/doses.csv")\nfit <- lm(response ~ dose, data = d)\nprint(summary(fit))\n';
new EditorView({ parent: inner, state: EditorState.create({ doc, extensions: exts }) });
