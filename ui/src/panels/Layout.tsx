//! The layout: dockview groups at 768 px and wider, one APG tab strip below; F6/Shift+F6 move between regions.

import { DockviewDefaultTab, DockviewReact, type DockviewApi, type IDockviewPanelHeaderProps, type IDockviewPanelProps } from "dockview-react";
import { useEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from "react";

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

/** F6 / Shift+F6: the next or previous region (the header, each dockview group, the tab panel). */
export function useF6(): void {
  useEffect(() => {
    const on = (e: globalThis.KeyboardEvent) => {
      if (e.key !== "F6") return;
      const regions = [...document.querySelectorAll<HTMLElement>("[data-region], .dv-groupview")];
      if (regions.length === 0) return;
      e.preventDefault();
      const at = regions.findIndex((r) => r.contains(document.activeElement));
      const next = regions[(at + (e.shiftKey ? regions.length - 1 : 1) + regions.length) % regions.length];
      if (!next) return;
      if (!next.hasAttribute("tabindex")) next.setAttribute("tabindex", "-1");
      next.focus();
    };
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, []);
}

function Tab(props: IDockviewPanelHeaderProps) {
  return (
    <DockviewDefaultTab
      {...props}
      hideClose
      onKeyDown={(e: KeyboardEvent<HTMLDivElement>) => {
        if (e.key === "Delete" && props.api.id !== "projects") props.api.close();
      }}
    />
  );
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

export function Layout({ panels, active, onActive, onClose }: { panels: PanelSpec[]; active: string; onActive: (id: string) => void; onClose: (id: string) => void }) {
  const wide = useWide();
  for (const p of panels) registry.set(p.id, p);
  useEffect(() => {
    revision++;
    for (const l of listeners) l();
  });
  return wide ? (
    <Docked panels={panels} active={active} onActive={onActive} onClose={onClose} />
  ) : (
    <Strip panels={panels} active={active} onActive={onActive} onClose={onClose} />
  );
}

function Docked({ panels, active, onActive, onClose }: { panels: PanelSpec[]; active: string; onActive: (id: string) => void; onClose: (id: string) => void }) {
  const [api, setApi] = useState<DockviewApi | null>(null);
  const handlers = useRef({ onActive, onClose });
  const sized = useRef(false);
  handlers.current = { onActive, onClose };

  useEffect(() => {
    if (!api) return;
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
        component: "hosted",
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
  }, [api, panels, active]);

  useEffect(() => {
    const p = api?.getPanel(active);
    if (p && !p.api.isActive) p.api.setActive();
  }, [api, active]);

  useEffect(() => {
    if (!api) return;
    const a = api.onDidActivePanelChange((e) => e.panel && handlers.current.onActive(e.panel.id));
    const r = api.onDidRemovePanel((p) => handlers.current.onClose(p.id));
    return () => {
      a.dispose();
      r.dispose();
    };
  }, [api]);

  return (
    <div className="dock" data-testid="dock">
      <DockviewReact className="dockview-theme-light" components={{ hosted: Hosted }} defaultTabComponent={Tab} onReady={(e) => setApi(e.api)} />
    </div>
  );
}

function Strip({ panels, active, onActive, onClose }: { panels: PanelSpec[]; active: string; onActive: (id: string) => void; onClose: (id: string) => void }) {
  const current = panels.find((p) => p.id === active) ?? panels[0];
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
