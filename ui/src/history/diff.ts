//! A line diff of a past version against now, for the History panel: common lines, removed lines, added lines.

export interface DiffLine {
  /** `same`: in both; `del`: only in the past version; `add`: only now. */
  kind: "same" | "del" | "add";
  text: string;
}

/** Lines the middle (after trimming common ends) may hold for the exact diff; beyond, one block. */
const MAX_MIDDLE = 2000;

/** `past` -> `now` line by line: trimmed common ends, then a longest common subsequence. */
export function lineDiff(past: string, now: string): DiffLine[] {
  const a = past.split("\n");
  const b = now.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ kind: "same", text }));
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (x.length * y.length > MAX_MIDDLE * MAX_MIDDLE / 4 || x.length > MAX_MIDDLE || y.length > MAX_MIDDLE) {
    out.push(...x.map((text): DiffLine => ({ kind: "del", text })), ...y.map((text): DiffLine => ({ kind: "add", text })));
  } else {
    out.push(...middle(x, y));
  }
  out.push(...a.slice(a.length - tail).map((text): DiffLine => ({ kind: "same", text })));
  return out;
}

function middle(x: string[], y: string[]): DiffLine[] {
  const n = x.length;
  const m = y.length;
  // lcs[i][j]: common lines of x[i..] and y[j..], in one flat array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[at(i, j)] = x[i] === y[j] ? (lcs[at(i + 1, j + 1)] ?? 0) + 1 : Math.max(lcs[at(i + 1, j)] ?? 0, lcs[at(i, j + 1)] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ kind: "same", text: x[i] ?? "" });
      i++;
      j++;
    } else if ((lcs[at(i + 1, j)] ?? 0) >= (lcs[at(i, j + 1)] ?? 0)) {
      out.push({ kind: "del", text: x[i++] ?? "" });
    } else {
      out.push({ kind: "add", text: y[j++] ?? "" });
    }
  }
  while (i < n) out.push({ kind: "del", text: x[i++] ?? "" });
  while (j < m) out.push({ kind: "add", text: y[j++] ?? "" });
  return out;
}

/** How many lines a diff removes and adds. */
export function counts(d: DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of d) {
    if (l.kind === "add") added++;
    if (l.kind === "del") removed++;
  }
  return { added, removed };
}
