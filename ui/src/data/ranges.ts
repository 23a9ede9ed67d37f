//! The keys of the points inside an x/y range: from the plotted points when they are all of them, else resolved by `data.page` filters on the whole table.

import { call } from "../api/client";
import type { PlotReply, ResourceRef } from "../api/types";

export interface Range {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Most keys a selection holds (`selection.set`). */
export const MAX_KEYS = 10_000;
const PAGE = 1000;

export function inRange(r: Range, x: number, y: number): boolean {
  return x >= Math.min(r.x0, r.x1) && x <= Math.max(r.x0, r.x1) && y >= Math.min(r.y0, r.y1) && y <= Math.max(r.y0, r.y1);
}

/** Keys of the plotted points in `r` (exact when the plot is not sampled). */
export function keysOfPoints(plot: PlotReply, r: Range): string[] {
  return plot.points.filter((p) => p.key && inRange(r, p.x, p.y)).map((p) => p.key as string);
}

export interface Axis {
  column: string;
  /** `integer` or `number`. */
  type: string;
}

/** `ge`/`le` filters of one axis; an integer column takes the whole numbers inside the range. */
export function bounds(a: Axis, v0: number, v1: number): { column: string; op: string; value: number }[] {
  const [lo, hi] = [Math.min(v0, v1), Math.max(v0, v1)];
  const int = a.type === "integer";
  return [
    { column: a.column, op: "ge", value: int ? Math.ceil(lo) : lo },
    { column: a.column, op: "le", value: int ? Math.floor(hi) : hi },
  ];
}

export class TooMany extends Error {
  constructor(readonly count: number) {
    super(`${count.toLocaleString("en")} rows are in this range; a selection holds at most ${MAX_KEYS.toLocaleString("en")}. Narrow the range.`);
  }
}

/** Every key in `r` over the whole table (a sampled plot shows only some points): `data.page`
 * with range filters on both columns, only the key column returned. */
export async function keysOfRange(projectId: string, resource: ResourceRef, x: Axis, y: Axis, key: string, r: Range): Promise<string[]> {
  const filter = [...bounds(x, r.x0, r.x1), ...bounds(y, r.y0, r.y1)];
  const keys: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await call("data.page", { projectId, resource, offset, limit: PAGE, filter, columns: [key] });
    if (page.total > MAX_KEYS) throw new TooMany(page.total);
    for (const row of page.rows) if (row.key) keys.push(row.key);
    if (offset + PAGE >= page.total) return keys;
  }
}
