//! The command line's history: Up and Down walk this project's earlier commands, keeping the draft being typed.

export interface Walk {
  /** `null`: the draft (not in the history). */
  index: number | null;
  draft: string;
}

/** The distinct commands to walk, oldest first (a command repeated in a row counts once). */
export function historyOf(commands: string[]): string[] {
  const out: string[] = [];
  for (const c of commands) if (c.trim() && out[out.length - 1] !== c) out.push(c);
  return out;
}

/**
 * One step of Up (`-1`) or Down (`+1`) from `walk` while the line reads `line`: the new walk
 * and the text to show. Leaving the draft remembers it; Down past the newest returns to it.
 */
export function step(history: string[], walk: Walk, line: string, dir: -1 | 1): { walk: Walk; text: string } {
  const draft = walk.index === null ? line : walk.draft;
  if (history.length === 0) return { walk: { index: null, draft }, text: line };
  let index: number | null;
  if (walk.index === null) index = dir === -1 ? history.length - 1 : null;
  else {
    const next = walk.index + dir;
    index = next < 0 ? 0 : next >= history.length ? null : next;
  }
  return { walk: { index, draft }, text: index === null ? draft : (history[index] ?? draft) };
}
