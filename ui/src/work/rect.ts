//! A rectangle on a media page: from the drawn screen box to media units (px or pt, origin top-left, y down), checks and key moves.

import type { MediaFacts, Rect } from "./ops";

export interface Size {
  width: number;
  height: number;
}

/** The page's size in its media units, or `null` when it has none (an SVG sized relatively). */
export function pageSize(facts: MediaFacts, page: number): Size | null {
  if (facts.format === "pdf") {
    const p = facts.pages?.[page - 1];
    return p ? { width: p.width, height: p.height } : null;
  }
  if (typeof facts.width === "number" && typeof facts.height === "number" && facts.width > 0 && facts.height > 0) {
    return { width: facts.width, height: facts.height };
  }
  return null;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/**
 * A box drawn on the displayed page (CSS px from its top-left corner) in media units: the
 * display is scaled to the page, and the box is clipped to it.
 */
export function toMedia(box: Rect, shown: Size, page: Size): Rect {
  const sx = page.width / shown.width;
  const sy = page.height / shown.height;
  const x0 = Math.min(Math.max(Math.min(box.x, box.x + box.width), 0), shown.width);
  const y0 = Math.min(Math.max(Math.min(box.y, box.y + box.height), 0), shown.height);
  const x1 = Math.min(Math.max(Math.max(box.x, box.x + box.width), 0), shown.width);
  const y1 = Math.min(Math.max(Math.max(box.y, box.y + box.height), 0), shown.height);
  return { x: round(x0 * sx), y: round(y0 * sy), width: round((x1 - x0) * sx), height: round((y1 - y0) * sy) };
}

/** The rectangle in display px (to draw it over the page). */
export function toShown(r: Rect, shown: Size, page: Size): Rect {
  const sx = shown.width / page.width;
  const sy = shown.height / page.height;
  return { x: r.x * sx, y: r.y * sy, width: r.width * sx, height: r.height * sy };
}

/** Why `r` is not a rectangle of the page (the service checks the same), or `null`. */
export function problem(r: Rect, page: Size, units: string): string | null {
  const all = [r.x, r.y, r.width, r.height];
  if (!all.every((v) => Number.isFinite(v))) return "every field is a number";
  if (r.x < 0 || r.y < 0) return "x and y are 0 or more";
  if (r.width <= 0 || r.height <= 0) return "width and height are more than 0";
  if (r.x + r.width > page.width + 1e-9 || r.y + r.height > page.height + 1e-9) {
    return `the rectangle leaves the page (${page.width} x ${page.height} ${units})`;
  }
  return null;
}

/**
 * The keyboard alternative to drawing: arrows move the rectangle, Shift+arrows resize it, by
 * `step` media units, kept on the page. Returns `null` for other keys.
 */
export function nudge(r: Rect, key: string, shift: boolean, step: number, page: Size): Rect | null {
  const d: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  const v = d[key];
  if (!v) return null;
  const [dx, dy] = v;
  if (shift) {
    const width = dx === 0 ? r.width : Math.min(Math.max(r.width + dx, step), page.width - r.x);
    const height = dy === 0 ? r.height : Math.min(Math.max(r.height + dy, step), page.height - r.y);
    return { ...r, width: round(width), height: round(height) };
  }
  const x = Math.min(Math.max(r.x + dx, 0), page.width - r.width);
  const y = Math.min(Math.max(r.y + dy, 0), page.height - r.height);
  return { ...r, x: round(x), y: round(y) };
}
