//! The remembered docked layout: a saved dockview layout is pruned to the panels open now, and anything unusable is refused (the app then lays out anew).

import { describe, expect, it } from "vitest";
import { fitDock, placed } from "../src/panels/dockMemory";

const panel = (id: string) => ({ id, contentComponent: "hosted", params: { id }, title: id });
const leaf = (id: string, views: string[], size: number, activeView = views[0]) => ({ type: "leaf", data: { id, views, activeView }, size });

/** Projects on the left; on the right the editors above Runs (what "a new group below" makes). */
function saved(extra: Record<string, unknown> = {}) {
  return {
    grid: {
      root: {
        type: "branch",
        size: 900,
        data: [leaf("1", ["projects"], 420), { type: "branch", size: 1180, data: [leaf("2", ["file:a.R", "file:b.csv", "agent"], 600, "file:b.csv"), leaf("3", ["runs"], 300)] }],
      },
      width: 1600,
      height: 900,
      orientation: "HORIZONTAL",
    },
    panels: Object.fromEntries(["projects", "file:a.R", "file:b.csv", "agent", "runs"].map((id) => [id, panel(id)])),
    activeGroup: "3",
    ...extra,
  };
}

const all = new Set(["projects", "file:a.R", "file:b.csv", "agent", "runs"]);

describe("the remembered docked layout", () => {
  it("comes back whole when the same panels are open", () => {
    const d = fitDock(JSON.stringify(saved()), all);
    expect(d).not.toBeNull();
    expect(placed(d!)).toEqual([["projects"], ["file:a.R", "file:b.csv", "agent"], ["runs"]]);
    expect(d!.activeGroup).toBe("3");
    expect(d!.grid.width).toBe(1600);
  });

  it("drops a panel that is no longer open, and a group it leaves empty", () => {
    const open = new Set(["projects", "file:a.R", "agent"]);
    const d = fitDock(JSON.stringify(saved()), open)!;
    expect(placed(d)).toEqual([["projects"], ["file:a.R", "agent"]]);
    expect(Object.keys(d.panels).sort()).toEqual(["agent", "file:a.R", "projects"]);
    // The active view was b.csv: the group's first remaining panel is active instead.
    const right = (d.grid.root.data as { data: unknown }[])[1] as { data: { data: { activeView: string } }[] };
    expect(right.data[0]!.data.activeView).toBe("file:a.R");
    // The active group went with Runs.
    expect(d.activeGroup).toBeUndefined();
  });

  it("shows the app's active panel in its group, and makes that group the active one", () => {
    const d = fitDock(JSON.stringify(saved()), all, "agent")!;
    const right = (d.grid.root.data as { data: unknown }[])[1] as { data: { data: { activeView: string; id: string } }[] };
    expect(right.data[0]!.data.activeView).toBe("agent");
    expect(d.activeGroup).toBe("2");
    // A panel the layout does not hold changes nothing.
    expect(fitDock(JSON.stringify(saved()), all, "console")!.activeGroup).toBe("3");
  });

  it("refuses what it cannot use: not JSON, another shape, another component, floating groups, nothing left", () => {
    expect(fitDock(null, all)).toBeNull();
    expect(fitDock("{not json", all)).toBeNull();
    expect(fitDock(JSON.stringify({ files: ["a.R"], active: "projects" }), all)).toBeNull();
    const leafRoot = saved();
    (leafRoot.grid as { root: unknown }).root = leaf("1", ["projects"], 900);
    expect(fitDock(JSON.stringify(leafRoot), all)).toBeNull();
    const other = saved();
    other.panels["runs"] = { ...panel("runs"), contentComponent: "somethingElse" };
    expect(fitDock(JSON.stringify(other), all)).toBeNull();
    const renamed = saved();
    renamed.panels["runs"] = { ...panel("runs"), params: { id: "agent" } };
    expect(fitDock(JSON.stringify(renamed), all)).toBeNull();
    expect(fitDock(JSON.stringify(saved({ floatingGroups: [{}] })), all)).toBeNull();
    expect(fitDock(JSON.stringify(saved({ floatingGroups: [], popoutGroups: [] })), all)).not.toBeNull();
    expect(fitDock(JSON.stringify(saved()), new Set(["console"]))).toBeNull();
    const broken = saved();
    (broken.grid.root.data as unknown[]).push({ type: "leaf", data: { id: "9" } });
    expect(fitDock(JSON.stringify(broken), all)).toBeNull();
  });
});
