//! The Agent's edits, visibly attributed: the text another author inserted is tinted and titled with the author.

import { StateEffect, StateField, type ChangeSet } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView } from "@codemirror/view";

const addMarks = StateEffect.define<{ from: number; to: number; author: string }[]>();

export const authorMarks = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(addMarks)) continue;
      const ranges = e.value
        .filter((r) => r.to > r.from)
        .map((r) =>
          Decoration.mark({ class: "cm-foreign-edit", attributes: { title: `edited by ${r.author}` } }).range(r.from, r.to),
        );
      next = next.update({ add: ranges, sort: true });
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** The effect that marks the text `changes` inserted (in the new document's coordinates). */
export function marksFor(changes: ChangeSet, author: string): StateEffect<{ from: number; to: number; author: string }[]> {
  const ranges: { from: number; to: number; author: string }[] = [];
  changes.iterChanges((_fa, _ta, fromB, toB) => ranges.push({ from: fromB, to: toB, author }));
  return addMarks.of(ranges);
}
