//! The person's linked selection per key namespace: `selection.set` in the shared scope, kept current from `selection.changed` (or `selection.read` when the event leaves the keys out).

import { useSyncExternalStore } from "react";
import { call } from "../api/client";

/** The scope the app selects in: shared, so the Agent reads what the person pointed at. */
export const SCOPE = "shared";
const EMPTY: ReadonlySet<string> = new Set();

interface Held {
  keys: ReadonlySet<string>;
  version: number;
}

/** By project and namespace. */
const held = new Map<string, Held>();
const slot = (projectId: string, namespace: string) => `${projectId}\u0000${namespace}`;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of listeners) l();
}

function store(at: string, keys: Iterable<string>, version: number): void {
  const now = held.get(at);
  if (now && now.version > version) return;
  held.set(at, { keys: new Set(keys), version });
  emit();
}

/** The selected keys of `namespace` as held now (empty until read). */
export function heldKeys(projectId: string, namespace: string): ReadonlySet<string> {
  return held.get(slot(projectId, namespace))?.keys ?? EMPTY;
}

/** The selected keys of `namespace` (reading them once from the service). */
export function useSelection(projectId: string, namespace: string | null): ReadonlySet<string> {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      if (namespace && !held.has(slot(projectId, namespace))) void refresh(projectId, namespace);
      return () => listeners.delete(l);
    },
    () => (namespace ? heldKeys(projectId, namespace) : EMPTY),
  );
}

/** Reads one namespace's selection from the service. */
export async function refresh(projectId: string, namespace: string): Promise<void> {
  try {
    const r = await call("selection.read", { projectId, scope: SCOPE, namespace });
    store(slot(projectId, namespace), r.keys, r.version);
  } catch {
    // The table or chart shows no selection until the next event.
  }
}

/** Selects `keys` (at most 10,000) in `namespace`; shown at once, confirmed by the reply. */
export async function select(projectId: string, namespace: string, keys: string[]): Promise<void> {
  const at = slot(projectId, namespace);
  const before = held.get(at);
  held.set(at, { keys: new Set(keys), version: before?.version ?? 0 });
  emit();
  try {
    const r = await call("selection.set", { projectId, changeId: crypto.randomUUID(), scope: SCOPE, namespace, keys });
    store(at, keys, r.version);
  } catch (e) {
    if (before) held.set(at, before);
    else held.delete(at);
    emit();
    throw e;
  }
}

/** `selection.changed`: the shared scope's keys when the event carries them, else a read. */
export function selectionChanged(projectId: string, data: Record<string, unknown>): void {
  const namespace = typeof data["namespace"] === "string" ? data["namespace"] : null;
  if (data["scope"] !== SCOPE || !namespace) return;
  const keys = data["keys"];
  const version = typeof data["version"] === "number" ? data["version"] : 0;
  if (Array.isArray(keys)) store(slot(projectId, namespace), keys.filter((k): k is string => typeof k === "string"), version);
  else void refresh(projectId, namespace);
}

/** After a gap: every held namespace is read again. */
export async function resyncSelections(projectId: string): Promise<void> {
  const prefix = slot(projectId, "");
  const mine = [...held.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  await Promise.all(mine.map((ns) => refresh(projectId, ns)));
}
