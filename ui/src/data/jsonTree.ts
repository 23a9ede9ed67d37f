//! A JSON value as the rows of a tree (visible rows only, long containers shown 100 children at a time) and RFC 6901 pointers of its nodes.

export interface TreeRow {
  /** The node's pointer relative to the value read (`""` for the root). */
  path: string;
  parent: string | null;
  depth: number;
  label: string | null;
  value: unknown;
  container: boolean;
  expanded: boolean;
  summary: string;
  setSize: number;
  posInSet: number;
  /** Set on a "show more" row: the container whose next children it shows. */
  more?: string;
}

const PAGE = 100;

export function escapeToken(t: string): string {
  return t.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The absolute pointer of `relative` below `base`. */
export function childPointer(base: string, relative: string): string {
  return base + relative;
}

function summary(v: unknown): string {
  if (Array.isArray(v)) return `[${v.length} ${v.length === 1 ? "item" : "items"}]`;
  if (v && typeof v === "object") {
    const n = Object.keys(v).length;
    return `{${n} ${n === 1 ? "field" : "fields"}}`;
  }
  return "";
}

/** The visible rows of `value`: `open` holds expanded paths, `shown` how many children a long container shows. */
export function flatten(value: unknown, open: ReadonlySet<string>, shown: Readonly<Record<string, number>>): TreeRow[] {
  const out: TreeRow[] = [];
  const visit = (v: unknown, path: string, parent: string | null, depth: number, label: string | null, setSize: number, posInSet: number) => {
    const container = v !== null && typeof v === "object";
    const expanded = container && open.has(path);
    out.push({ path, parent, depth, label, value: v, container, expanded, summary: summary(v), setSize, posInSet });
    if (!expanded) return;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
    const limit = shown[path] ?? PAGE;
    const size = Math.min(entries.length, limit) + (entries.length > limit ? 1 : 0);
    entries.slice(0, limit).forEach(([k, x], i) => visit(x, `${path}/${escapeToken(k)}`, path, depth + 1, k, size, i + 1));
    if (entries.length > limit) {
      out.push({
        path: `${path}/#more`,
        parent: path,
        depth: depth + 1,
        label: `Show ${Math.min(PAGE, entries.length - limit)} more of ${entries.length} (${entries.length - limit} not shown)`,
        value: null,
        container: false,
        expanded: false,
        summary: "",
        setSize: size,
        posInSet: size,
        more: path,
      });
    }
  };
  visit(value, "", null, 0, null, 1, 1);
  return out;
}
