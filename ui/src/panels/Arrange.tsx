//! The keyboard and typed alternative to dockview's drags: "Arrange…" moves a panel into another group or a new group beside one, and sets its group's size in pixels.

import type { DockviewApi, DockviewGroupPanel, IDockviewHeaderActionsProps, IDockviewPanel } from "dockview-react";
import { useEffect, useId, useRef, useState, useSyncExternalStore, type FormEvent, type KeyboardEvent } from "react";
import { createPortal } from "react-dom";

type Side = "left" | "right" | "top" | "bottom";
type Position = Side | "center";

/** One place a panel can go: into a group, or into a new group on one side of a group. */
export interface Place {
  key: string;
  label: string;
  group: DockviewGroupPanel;
  position: Position;
}

const SIDES: [Side, string][] = [
  ["left", "left of"],
  ["right", "right of"],
  ["top", "above"],
  ["bottom", "below"],
];

/** A group named by its panels, as a person sees it. */
export function groupName(g: DockviewGroupPanel): string {
  const titles = g.panels.map((p) => p.title ?? p.id);
  const shown = titles.slice(0, 3).join(", ");
  return `the group of ${shown}${titles.length > 3 ? ` and ${titles.length - 3} more` : ""}`;
}

/** Where `panel` can be moved: into every other group, and beside every group (beside its own only when it has company). */
export function placesFor(api: DockviewApi, panel: IDockviewPanel): Place[] {
  const own = panel.group;
  const out: Place[] = [];
  for (const g of api.groups) {
    if (g !== own) out.push({ key: `${g.id}:center`, label: `Into ${groupName(g)}`, group: g, position: "center" });
  }
  for (const g of api.groups) {
    if (g === own && own.panels.length < 2) continue;
    for (const [side, words] of SIDES) out.push({ key: `${g.id}:${side}`, label: `A new group ${words} ${groupName(g)}`, group: g, position: side });
  }
  return out;
}

// Who asked for the dialog: a group's Arrange button or a tab's Shift+F10, with where focus returns.
interface Request {
  panelId: string;
  from: HTMLElement | null;
}
let request: Request | null = null;
const listeners = new Set<() => void>();
const setRequest = (r: Request | null) => {
  request = r;
  for (const l of listeners) l();
};
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** Opens the Arrange dialog for `panelId`; focus goes back to `from` when it closes. */
export function openArrange(panelId: string, from: HTMLElement | null): void {
  setRequest({ panelId, from });
}

/** The button in every group's header: arranges the group's active panel. */
export function ArrangeButton(props: IDockviewHeaderActionsProps) {
  const panel = props.activePanel;
  const open = useSyncExternalStore(subscribe, () => request);
  if (!panel) return null;
  const title = panel.title ?? panel.id;
  return (
    <button
      type="button"
      className="arrange"
      aria-haspopup="dialog"
      aria-expanded={open?.panelId === panel.id}
      aria-label={`Arrange ${title}: move it or size its group`}
      title={`Arrange ${title}: move it to another group or a new one, or size its group (Shift+F10 on a tab)`}
      onClick={(e) => openArrange(panel.id, e.currentTarget)}
    >
      <span aria-hidden="true">⋮</span>
    </button>
  );
}

/** Focuses the tab of `panel` (its group's selected tab once it is active there). */
function focusTab(panel: IDockviewPanel): void {
  requestAnimationFrame(() => panel.group.element.querySelector<HTMLElement>('.dv-tab[aria-selected="true"]')?.focus());
}

/** The dialog itself: one per dock, for whichever panel was asked for. */
export function ArrangeDialog({ api }: { api: DockviewApi }) {
  const asked = useSyncExternalStore(subscribe, () => request);
  const panel = asked ? api.getPanel(asked.panelId) : undefined;
  if (!asked || !panel) return null;
  return createPortal(<Dialog key={`${panel.id}:${panel.group.id}`} api={api} panel={panel} from={asked.from} />, document.body);
}

function Dialog({ api, panel, from }: { api: DockviewApi; panel: IDockviewPanel; from: HTMLElement | null }) {
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const first = useRef<HTMLSelectElement>(null);
  const places = placesFor(api, panel);
  const [where, setWhere] = useState(places[0]?.key ?? "");
  const group = panel.group;
  const [width, setWidth] = useState(String(Math.round(group.width)));
  const [height, setHeight] = useState(String(Math.round(group.height)));
  const [said, setSaid] = useState<string | null>(null);
  const title = panel.title ?? panel.id;

  const close = (focus: HTMLElement | null = from) => {
    setRequest(null);
    if (focus?.isConnected) focus.focus();
  };

  useEffect(() => {
    first.current?.focus();
    const away = (e: PointerEvent) => {
      if (box.current && !box.current.contains(e.target as Node) && e.target !== from) setRequest(null);
    };
    document.addEventListener("pointerdown", away, true);
    return () => document.removeEventListener("pointerdown", away, true);
  }, [from]);

  const move = (e: FormEvent) => {
    e.preventDefault();
    const place = places.find((p) => p.key === where);
    if (!place) return;
    panel.api.moveTo({ group: place.group, position: place.position });
    setRequest(null);
    focusTab(panel);
  };

  const size = (w: string, h: string) => {
    const wide = Number(w);
    const high = Number(h);
    const next: { width?: number; height?: number } = {};
    if (w.trim() !== "" && Number.isFinite(wide) && wide > 0) next.width = wide;
    if (h.trim() !== "" && Number.isFinite(high) && high > 0) next.height = high;
    if (next.width === undefined && next.height === undefined) {
      setSaid("Type a width or a height in pixels.");
      return;
    }
    group.api.setSize(next);
    // The grid keeps its other groups' minimums: say what the group became.
    setSaid(`The group is ${Math.round(group.width)} px wide and ${Math.round(group.height)} px high.`);
  };

  const step = (e: KeyboardEvent<HTMLInputElement>, value: string, set: (v: string) => void, which: "w" | "h") => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    const by = (e.shiftKey ? 100 : 20) * (e.key === "ArrowUp" ? 1 : -1);
    const next = String(Math.max(0, (Number(value) || 0) + by));
    set(next);
    if (which === "w") size(next, "");
    else size("", next);
  };

  const at = from?.getBoundingClientRect();
  const style = at ? { top: Math.min(at.bottom + 4, window.innerHeight - 40), right: Math.max(8, window.innerWidth - at.right) } : { top: 48, right: 8 };
  return (
    <div
      ref={box}
      className="arrange-dialog"
      role="dialog"
      aria-labelledby={`${id}-title`}
      style={style}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          close();
        }
      }}
    >
      <h2 id={`${id}-title`}>Arrange {title}</h2>
      <form onSubmit={move}>
        <label htmlFor={`${id}-where`}>Move {title} to</label>
        <div className="row">
          <select id={`${id}-where`} ref={first} value={where} onChange={(e) => setWhere(e.target.value)} disabled={places.length === 0}>
            {places.map((p) => (
              <option key={p.key} value={p.key}>
                {p.label}
              </option>
            ))}
          </select>
          <button type="submit" disabled={places.length === 0}>
            Move
          </button>
        </div>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          size(width, height);
        }}
      >
        <p className="label">Size of its group, in pixels (arrow keys: 20 px, with Shift 100 px)</p>
        <div className="row">
          <label className="inline">
            Width <input type="number" min={0} inputMode="numeric" value={width} onChange={(e) => setWidth(e.target.value)} onKeyDown={(e) => step(e, width, setWidth, "w")} />
          </label>
          <label className="inline">
            Height <input type="number" min={0} inputMode="numeric" value={height} onChange={(e) => setHeight(e.target.value)} onKeyDown={(e) => step(e, height, setHeight, "h")} />
          </label>
          <button type="submit">Set size</button>
        </div>
      </form>
      <p role="status" className="muted" data-testid="arrange-status">
        {said}
      </p>
      <button type="button" onClick={() => close()}>
        Close
      </button>
    </div>
  );
}
