//! The layout: dockview groups at 768 px and wider (remembered per project, arranged by keyboard too), one APG tab strip below; F6/Shift+F6 move between regions.

import { DockviewDefaultTab, DockviewReact, type DockviewApi, type IDockviewPanelHeaderProps, type IDockviewPanelProps, type SerializedDockview } from "dockview-react";
import { useEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from "react";
import { ArrangeButton, ArrangeDialog, openArrange } from "./Arrange";
import { COMPONENT, dockKey, fitDock, type SavedDock } from "./dockMemory";

export interface PanelSpec {
  id: string;
  title: string;
  render: () => ReactNode;
}

export function useWide(): boolean {
  const query = "(min-width: 768px)";
  const [wide, setWide] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const m = window.matchMedia(query);
    const on = () => setWide(m.matches);
    m.addEventListener("change", on);
    return () => m.removeEventListener("change", on);
  }, []);
  return wide;
}

/** The regions F6 moves between, in document order: the innermost of the header, each dockview
 *  group, the strip's tab list and its tab panel (`main` holds the groups, so it is never one
 *  while they are there; on the access screen it is the only one). */
export function regions(): HTMLElement[] {
  const all = [...document.querySelectorAll<HTMLElement>("[data-region], .dv-groupview")];
  return all.filter((r) => !all.some((o) => o !== r && r.contains(o)));
}

/** Where focus lands in a region: a group's or the strip's selected tab, else the region itself. */
function entryOf(region: HTMLElement): HTMLElement {
  const tab = region.querySelector<HTMLElement>('.dv-tab[aria-selected="true"], [role="tab"][aria-selected="true"]');
  if (tab) return tab;
  if (!region.hasAttribute("tabindex")) region.setAttribute("tabindex", "-1");
  return region;
}

/** F6 / Shift+F6: the next or previous region, wrapping (the header, each dockview group; below 768 px the tab list and the tab panel). */
export function useF6(): void {
  useEffect(() => {
    const on = (e: globalThis.KeyboardEvent) => {
      if (e.key !== "F6" || e.ctrlKey || e.altKey || e.metaKey) return;
      const list = regions();
      if (list.length === 0) return;
      e.preventDefault();
      const at = list.findIndex((r) => r.contains(document.activeElement));
      const next = at < 0 ? (e.shiftKey ? list.length - 1 : 0) : (at + (e.shiftKey ? list.length - 1 : 1)) % list.length;
      list[next] && entryOf(list[next]).focus();
    };
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, []);
}

function Tab(props: IDockviewPanelHeaderProps) {
  return <DockviewDefaultTab {...props} hideClose />;
}

/** Keys on a focused dockview tab, before dockview's own tab list sees them: Shift+F10 or the
 *  context-menu key arranges the tab's panel (the keyboard's way to dock it elsewhere); Delete and
 *  Backspace never close the files list. */
function onTabKey(e: KeyboardEvent<HTMLDivElement>): void {
  const tab = (e.target as HTMLElement).closest<HTMLElement>(".dv-tab");
  const id = tab?.dataset["tabPanelId"];
  if (!tab || !id) return;
  if ((e.key === "F10" && e.shiftKey) || e.key === "ContextMenu") {
    e.preventDefault();
    e.stopPropagation();
    openArrange(id, tab);
  } else if ((e.key === "Delete" || e.key === "Backspace") && id === "projects") {
    e.stopPropagation();
  }
}

// Dockview renders its panels itself: they read their content from this registry and re-render
// when the app publishes new content.
const registry = new Map<string, PanelSpec>();
let revision = 0;
const listeners = new Set<() => void>();
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** A docked panel mounts its content only once its tab is first shown (then stays mounted), so a
 *  panel in a background tab sends no request that competes with the first render in front. */
function Hosted(props: IDockviewPanelProps<{ id: string }>) {
  useSyncExternalStore(subscribe, () => revision);
  const spec = registry.get(props.params.id);
  const [shown, setShown] = useState(() => props.api.isVisible);
  useEffect(() => {
    if (shown) return;
    const sub = props.api.onDidVisibilityChange((e) => e.isVisible && setShown(true));
    return () => sub.dispose();
  }, [props.api, shown]);
  return <div className="dv-panel">{spec && shown ? spec.render() : null}</div>;
}

interface LayoutProps {
  panels: PanelSpec[];
  active: string;
  onActive: (id: string) => void;
  onClose: (id: string) => void;
  /** The project whose docked layout is remembered (`null` while its panels are not there yet). */
  memory: string | null;
}

export function Layout(props: LayoutProps) {
  const wide = useWide();
  for (const p of props.panels) registry.set(p.id, p);
  useEffect(() => {
    revision++;
    for (const l of listeners) l();
  });
  return wide ? <Docked {...props} /> : <Strip {...props} />;
}

/** The remembered layout of `project`, fit to the panels open now (null: none, or unusable, which is forgotten). */
function remembered(project: string, panels: PanelSpec[], active: string): SavedDock | null {
  try {
    const raw = localStorage.getItem(dockKey(project));
    const fit = fitDock(raw, new Set(panels.map((p) => p.id)), active);
    if (raw !== null && fit === null) localStorage.removeItem(dockKey(project));
    return fit;
  } catch {
    return null;
  }
}

function Docked({ panels, active, onActive, onClose, memory }: LayoutProps) {
  const [api, setApi] = useState<DockviewApi | null>(null);
  const handlers = useRef({ onActive, onClose });
  const sized = useRef(false);
  /** The project whose layout this dock shows (restored, or laid out anew), and the one the app names now. */
  const shown = useRef<string | null>(null);
  const named = useRef<string | null>(memory);
  /** True while a remembered layout is being restored: its removals are not the person closing tabs. */
  const restoring = useRef(false);
  handlers.current = { onActive, onClose };
  named.current = memory;

  // Subscribed before the panels are added, so the first layout of a project is remembered too.
  useEffect(() => {
    if (!api) return;
    const a = api.onDidActivePanelChange((e) => e.panel && handlers.current.onActive(e.panel.id));
    const r = api.onDidRemovePanel((p) => restoring.current || handlers.current.onClose(p.id));
    // Every change of groups, sizes or panels is remembered for the project shown, never while
    // restoring and never while the app is between projects.
    const l = api.onDidLayoutChange(() => {
      const project = shown.current;
      if (restoring.current || project === null || named.current !== project || api.panels.length === 0) return;
      try {
        localStorage.setItem(dockKey(project), JSON.stringify(api.toJSON()));
      } catch {
        // A full or refused storage only loses the memory of the layout.
      }
    });
    return () => {
      a.dispose();
      r.dispose();
      l.dispose();
    };
  }, [api]);

  useEffect(() => {
    if (!api) return;
    if (memory !== null && shown.current !== memory) {
      shown.current = memory;
      const saved = remembered(memory, panels, active);
      if (saved) {
        restoring.current = true;
        try {
          api.fromJSON(saved as unknown as SerializedDockview, { reuseExistingPanels: true });
          sized.current = true;
        } catch {
          // A layout dockview refuses is forgotten; the panels go where new panels go.
          localStorage.removeItem(dockKey(memory));
          api.clear();
        } finally {
          restoring.current = false;
        }
      }
    }
    for (const p of panels) {
      const existing = api.getPanel(p.id);
      if (existing) {
        existing.api.setTitle(p.title);
        continue;
      }
      const editors = api.panels.filter((x) => x.id !== "projects");
      const first = editors[0];
      api.addPanel({
        id: p.id,
        component: COMPONENT,
        title: p.title,
        params: { id: p.id },
        position: first ? { referencePanel: first.id, direction: "within" } : api.getPanel("projects") ? { referencePanel: "projects", direction: "right" } : undefined,
        inactive: p.id !== active,
      });
    }
    // The files column stays narrow once the editors have a group of their own.
    const projects = api.getPanel("projects");
    if (projects && api.groups.length > 1 && !sized.current) {
      projects.group.api.setSize({ width: 340 });
      sized.current = true;
    }
    for (const x of [...api.panels]) if (!panels.some((p) => p.id === x.id)) x.api.close();
  }, [api, panels, active, memory]);

  useEffect(() => {
    const p = api?.getPanel(active);
    if (p && !p.api.isActive) p.api.setActive();
  }, [api, active]);

  return (
    <div className="dock" data-testid="dock" onKeyDownCapture={onTabKey}>
      <DockviewReact
        className="dockview-theme-light"
        components={{ [COMPONENT]: Hosted }}
        defaultTabComponent={Tab}
        rightHeaderActionsComponent={ArrangeButton}
        onReady={(e) => setApi(e.api)}
      />
      {api && <ArrangeDialog api={api} />}
    </div>
  );
}

function Strip({ panels, active, onActive, onClose }: LayoutProps) {
  const current = panels.find((p) => p.id === active) ?? panels[0];
  // The strip scrolls sideways: the selected tab is kept in view.
  useEffect(() => {
    if (current) document.getElementById(`tab-${current.id}`)?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [current]);
  const key = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const go = (j: number) => {
      const p = panels[(j + panels.length) % panels.length];
      if (!p) return;
      onActive(p.id);
      document.getElementById(`tab-${p.id}`)?.focus();
    };
    if (e.key === "ArrowRight") go(i + 1);
    else if (e.key === "ArrowLeft") go(i - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(panels.length - 1);
    else if (e.key === "Delete" && panels[i]?.id !== "projects") onClose(panels[i]?.id ?? "");
    else return;
    e.preventDefault();
  };
  return (
    <div className="strip">
      <div role="tablist" aria-label="Open panels" className="tabs" data-region="tabs">
        {panels.map((p, i) => (
          <button
            key={p.id}
            id={`tab-${p.id}`}
            role="tab"
            type="button"
            aria-selected={p.id === current?.id}
            aria-controls={`tabpanel-${p.id}`}
            tabIndex={p.id === current?.id ? 0 : -1}
            onClick={() => onActive(p.id)}
            onKeyDown={(e) => key(e, i)}
          >
            {p.title}
          </button>
        ))}
      </div>
      {current && (
        <div role="tabpanel" id={`tabpanel-${current.id}`} aria-labelledby={`tab-${current.id}`} className="tabpanel" data-region="panel">
          {current.render()}
        </div>
      )}
    </div>
  );
}
