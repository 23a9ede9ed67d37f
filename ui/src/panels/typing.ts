//! Typing without the browser's own editing: a plain inserted text becomes the editor's transaction at `beforeinput` (decision 0418).
//!
//! Chromium's contenteditable insertion, and CodeMirror reading the DOM back, cost a keystroke
//! about a millisecond each on a slow machine before the edit can leave. For a plain `insertText`
//! outside any composition, the text is applied as CodeMirror's own `input.type` transaction (its
//! input handlers first, as for a DOM change) and the browser's default is prevented. Everything
//! else (IME composition, spell-check replacements, deletions, paste, drops) takes CodeMirror's
//! usual path unchanged.

import { EditorView } from "@codemirror/view";

export const directTyping = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const text = event.data;
    if (event.inputType !== "insertText" || !text || event.isComposing || view.composing) return false;
    if (view.state.readOnly) return false;
    const { from, to } = view.state.selection.main;
    const insert = () => view.state.update(view.state.replaceSelection(text), { userEvent: "input.type", scrollIntoView: true });
    event.preventDefault();
    if (view.state.facet(EditorView.inputHandler).some((h) => h(view, from, to, text, insert))) return true;
    view.dispatch(insert());
    return true;
  },
});
