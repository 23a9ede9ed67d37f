//! The work panels' share of the tab's one event stream, and the requests to show a panel, as tiny stores.

type Listener = (kind: string, data: Record<string, unknown>) => void;

const listeners = new Set<Listener>();

/** Hands an event of the tab's stream to the work panels (App calls it for every event). */
export function publishWork(kind: string, data: Record<string, unknown>): void {
  for (const l of [...listeners]) l(kind, data);
}

/** Subscribes to the stream's events; returns the unsubscribe. */
export function onWork(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

type Show = (panel: string) => void;
let shower: Show | null = null;
let focusedRun: string | null = null;
const runListeners = new Set<(op: string) => void>();

/** App says how a panel is brought forward (`runs`, `agent`, `media:<path>`). */
export function setShower(s: Show | null): void {
  shower = s;
}

/** Brings the Runs panel forward on one run (the Editor's "Run this script"). */
export function showRun(operationId: string): void {
  focusedRun = operationId;
  for (const l of runListeners) l(operationId);
  shower?.("runs");
}

/** The run to show first, and later requests to show another. */
export function onShowRun(l: (op: string) => void): () => void {
  runListeners.add(l);
  if (focusedRun) l(focusedRun);
  return () => runListeners.delete(l);
}

let opener: ((path: string) => void) | null = null;

/** App says how a project file is opened in the viewer its kind wants. */
export function setOpener(o: ((path: string) => void) | null): void {
  opener = o;
}

/** Opens a project file (a run's artifact) in its viewer. */
export function openPath(path: string): void {
  opener?.(path);
}
