//! The docked layout remembered per project in this browser: dockview's own JSON, checked and pruned to the panels open now before it is restored.

/** The part of dockview's `SerializedDockview` this module reads (the rest passes through untouched). */
export interface SavedDock {
  grid: { root: GridNode; width: number; height: number; orientation: string };
  panels: Record<string, { id: string; contentComponent?: string; params?: Record<string, unknown>; title?: string }>;
  activeGroup?: string;
  floatingGroups?: unknown[];
  popoutGroups?: unknown[];
  edgeGroups?: unknown;
}

interface GridNode {
  type: "leaf" | "branch";
  data: unknown;
  size?: number;
  visible?: boolean;
}

interface LeafData {
  id: string;
  views: string[];
  activeView?: string;
}

/** The storage key of a project's docked layout (beside `rho.layout.<id>`, the open files). */
export const dockKey = (projectId: string) => `rho.dock.${projectId}`;

/** The panel component every docked panel uses (`Layout.tsx` registers it under this name). */
export const COMPONENT = "hosted";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A saved layout made fit for the panels open now, or `null` when it cannot be used (not JSON,
 * not dockview's shape, a panel of another component, floating or popout groups, which this app
 * never makes, or nothing left). Panels that are no longer open are taken out of their groups; a
 * group left empty goes, and a branch left empty goes with it. Panels open now that the layout
 * does not name are not added here: the caller adds them where new panels go. The panel the app
 * shows (`active`) is its group's active view and that group the active one, so the restore
 * mounts no other panel of that group first.
 */
export function fitDock(raw: string | null, open: ReadonlySet<string>, active: string | null = null): SavedDock | null {
  if (raw === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObject(v) || !isObject(v["grid"]) || !isObject(v["panels"])) return null;
  const grid = v["grid"];
  if (!isObject(grid["root"]) || grid["root"]["type"] !== "branch" || typeof grid["width"] !== "number" || typeof grid["height"] !== "number") return null;
  for (const extra of ["floatingGroups", "popoutGroups"]) {
    const x = v[extra];
    if (x !== undefined && !(Array.isArray(x) && x.length === 0)) return null;
  }
  if (v["edgeGroups"] !== undefined) return null;
  const panels: SavedDock["panels"] = {};
  for (const [id, p] of Object.entries(v["panels"])) {
    if (!isObject(p) || p["id"] !== id || p["contentComponent"] !== COMPONENT) return null;
    if (!isObject(p["params"]) || p["params"]["id"] !== id) return null;
    if (open.has(id)) panels[id] = p as SavedDock["panels"][string];
  }
  const root = prune(grid["root"] as unknown as GridNode, new Set(Object.keys(panels)), active);
  if (!root || root.type !== "branch") return null;
  if (Object.keys(panels).length === 0) return null;
  const out = { ...(v as unknown as SavedDock), grid: { ...(grid as unknown as SavedDock["grid"]), root }, panels };
  const shown = active === null ? undefined : groupOf(root, active);
  if (shown !== undefined) out.activeGroup = shown;
  else if (out.activeGroup !== undefined && !groupIds(root).includes(out.activeGroup)) delete out.activeGroup;
  return out;
}

/** `node` with only the views in `keep` (`active` its group's active view); `null` when nothing is left (a malformed node is `undefined`: unusable). */
function prune(node: GridNode, keep: ReadonlySet<string>, active: string | null): GridNode | null | undefined {
  if (!isObject(node)) return undefined;
  if (node.type === "leaf") {
    const d = node.data;
    if (!isObject(d) || typeof d["id"] !== "string" || !Array.isArray(d["views"])) return undefined;
    const leaf = d as unknown as LeafData;
    const views = leaf.views.filter((x) => typeof x === "string" && keep.has(x));
    if (views.length === 0) return null;
    const activeView = active !== null && views.includes(active) ? active : leaf.activeView !== undefined && views.includes(leaf.activeView) ? leaf.activeView : views[0];
    return { ...node, data: { ...leaf, views, activeView } };
  }
  if (node.type !== "branch" || !Array.isArray(node.data)) return undefined;
  const children: GridNode[] = [];
  for (const c of node.data as GridNode[]) {
    const p = prune(c, keep, active);
    if (p === undefined) return undefined;
    if (p !== null) children.push(p);
  }
  // A branch the pruning left empty goes; a root branch with one leaf stays a branch (dockview's shape).
  return children.length === 0 ? null : { ...node, data: children };
}

/** The id of the group holding `panel`, if any. */
function groupOf(node: GridNode, panel: string): string | undefined {
  if (node.type === "leaf") {
    const d = node.data as LeafData;
    return d.views.includes(panel) ? d.id : undefined;
  }
  for (const c of node.data as GridNode[]) {
    const g = groupOf(c, panel);
    if (g !== undefined) return g;
  }
  return undefined;
}

function groupIds(node: GridNode): string[] {
  if (node.type === "leaf") return [(node.data as LeafData).id];
  return (node.data as GridNode[]).flatMap(groupIds);
}

/** Every panel a saved layout places, in its groups' order (tests and the caller's checks read it). */
export function placed(dock: SavedDock): string[][] {
  const out: string[][] = [];
  const walk = (n: GridNode) => (n.type === "leaf" ? out.push([...(n.data as LeafData).views]) : (n.data as GridNode[]).forEach(walk));
  walk(dock.grid.root);
  return out;
}
