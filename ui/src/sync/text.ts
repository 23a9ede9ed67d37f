//! Text helpers of the binding: `\n`-only lines (so `\r` stays a character), edits, and the surrogate-safe diff.

import { ChangeSet, Text } from "@codemirror/state";
import type { EditSpec } from "../api/types";

/** The one line separator: offsets are the service's UTF-16 offsets, CRLF included. */
export const SEP = "\n";

export function textOf(s: string): Text {
  return Text.of(s.split(SEP));
}

export function stringOf(t: Text): string {
  return t.sliceString(0, t.length, SEP);
}

/** One replacement as a change set over a document of `length` UTF-16 units. */
export function change(length: number, from: number, to: number, insert: string): ChangeSet {
  return ChangeSet.of({ from, to, insert: textOf(insert) }, length, SEP);
}

/** The service's edits (base coordinates, ascending) as a change set over `length` units. */
export function changeSetOf(edits: EditSpec[], length: number): ChangeSet {
  return ChangeSet.of(
    edits.map((e) => ({ from: e.start, to: e.end, insert: textOf(e.text) })),
    length,
    SEP,
  );
}

/** A change set as the service's edits: base coordinates, ascending, non-overlapping. */
export function editsOf(changes: ChangeSet): EditSpec[] {
  const edits: EditSpec[] = [];
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    edits.push({ start: fromA, end: toA, text: inserted.sliceString(0, inserted.length, SEP) });
  });
  return edits;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** The change from `a` to `b` as one replacement between their common prefix and suffix,
 * never splitting a surrogate pair. */
export function diff(a: string, b: string): ChangeSet {
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p < n && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  if (p > 0 && p < a.length && isHigh(a.charCodeAt(p - 1)) && isLow(a.charCodeAt(p))) p--;
  let s = 0;
  while (s < n - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  if (s > 0 && a.length - s > 0 && isLow(a.charCodeAt(a.length - s)) && isHigh(a.charCodeAt(a.length - s - 1))) s--;
  let insert = b.slice(p, b.length - s);
  const plain = (c: number) => !isHigh(c) && !isLow(c);
  // A pure insertion or deletion is ambiguous where its text repeats what precedes it: slide it
  // left, so a line put before (or taken from before) a line that starts like it is seen, and
  // marked, at the line's start.
  if (insert.length === 0) {
    while (p > 0 && a.length - s > p && a.charCodeAt(p - 1) === a.charCodeAt(a.length - s - 1) && plain(a.charCodeAt(p - 1))) {
      p--;
      s++;
    }
  } else if (p === a.length - s) {
    while (p > 0 && insert.length > 0 && a.charCodeAt(p - 1) === insert.charCodeAt(insert.length - 1)) {
      const c = a.charCodeAt(p - 1);
      if (isHigh(c) || isLow(c)) break;
      insert = a[p - 1] + insert.slice(0, -1);
      p--;
      s++;
    }
  }
  return change(a.length, p, a.length - s, insert);
}
