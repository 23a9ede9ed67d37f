//! Typing without the browser's own editing: a plain inserted text becomes the editor's transaction at `beforeinput`, handed to the buffer before the editor redraws (decision 0418).
//!
//! Chromium's contenteditable insertion, and CodeMirror reading the DOM back, cost a keystroke
//! about a millisecond each on a slow machine before the edit can leave. For a plain `insertText`
//! outside any composition, the text is applied as CodeMirror's own `input.type` transaction (its
//! input handlers first, as for a DOM change) and the browser's default is prevented; `local`
//! receives the transaction's changes before the view updates, and the transaction is marked
//! [`Sent`] so the editor's update listener does not hand them over twice. Everything else (IME
//! composition, spell-check replacements, deletions, paste, drops) takes CodeMirror's usual path.

import { Annotation, type ChangeSet } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

/** A transaction whose changes were already handed to the buffer. */
export const Sent = Annotation.define<boolean>();

export function directTyping(local: (changes: ChangeSet) => void) {
  return EditorView.domEventHandlers({
    beforeinput(event, view) {
      const text = event.data;
      if (event.inputType !== "insertText" || !text || event.isComposing || view.composing) return false;
      if (view.state.readOnly) return false;
      const { from, to } = view.state.selection.main;
      const spec = { userEvent: "input.type", scrollIntoView: true };
      const insert = () => view.state.update(view.state.replaceSelection(text), spec);
      event.preventDefault();
      if (view.state.facet(EditorView.inputHandler).some((h) => h(view, from, to, text, insert))) return true;
      const tr = view.state.update(view.state.replaceSelection(text), spec, { annotations: Sent.of(true) });
      local(tr.changes);
      view.dispatch(tr);
      return true;
    },
  });
}
