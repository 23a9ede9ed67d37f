//! A file opens in the viewer its kind wants: a registered table in the Table, an exported object in the Object view, an unregistered CSV in the registration form (or as text), anything else in the Editor.

import { lazy, Suspense, useEffect, useState, type ReactNode } from "react";
import { call } from "../api/client";
import type { ResourceView, TableDecl } from "../api/types";
import { ObjectPanel } from "./ObjectView";
import { RegisterTablePanel } from "./RegisterTable";
import { TablePanel } from "./Table";

// uPlot stays out of the initial bundle: the scatter is its own chunk.
const ScatterPanel = lazy(() => import("./Scatter").then((m) => ({ default: m.ScatterPanel })));

/** The prefix of a scatter's entry in the open-files list (`plot:` + the table's path). */
export const PLOT = "plot:";

type Tabled = ResourceView & { table: TableDecl };

/** The latest resource version registered at `path`, if any. */
async function resourceAt(projectId: string, path: string): Promise<ResourceView | null> {
  let cursor: string | null = null;
  do {
    const page: { resources: ResourceView[]; next?: string | null } = await call("resource.list", { projectId, cursor });
    const found = page.resources.find((r) => r.path === path);
    if (found) return found;
    cursor = page.next ?? null;
  } while (cursor);
  return null;
}

export interface FileViewParams {
  projectId: string;
  /** A project path, or `plot:` + a table's path. */
  entry: string;
  /** Bumped when resources may have changed. */
  revision: number;
  editor: (path: string) => ReactNode;
  onOpen: (entry: string) => void;
}

export function FileView({ projectId, entry, revision, editor, onOpen }: FileViewParams) {
  const plot = entry.startsWith(PLOT);
  const path = plot ? entry.slice(PLOT.length) : entry;
  const [resource, setResource] = useState<ResourceView | null | undefined>(undefined);
  const [asText, setAsText] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    resourceAt(projectId, path).then(
      (r) => live && setResource((now) => (now && r && now.id === r.id && now.version === r.version ? now : r)),
      (e: unknown) => live && (setProblem(e instanceof Error ? e.message : String(e)), setResource(null)),
    );
    return () => {
      live = false;
    };
  }, [projectId, path, revision]);

  if (resource === undefined) return <p className="panel-body">Opening {path}…</p>;
  const table = resource && resource.kind === "table" && resource.table ? (resource as Tabled) : null;
  if (plot) {
    if (!table) return <p className="panel-body">{problem ?? `${path} is not a registered table, so it cannot be plotted.`}</p>;
    return (
      <Suspense fallback={<p className="panel-body">Loading the plot…</p>}>
        <ScatterPanel key={`${table.id}:${table.version}`} projectId={projectId} resource={table} />
      </Suspense>
    );
  }
  if (table && !asText) {
    return <TablePanel key={`${table.id}:${table.version}`} projectId={projectId} resource={table} onPlot={() => onOpen(`${PLOT}${path}`)} onText={() => setAsText(true)} />;
  }
  if (resource && resource.kind === "object" && !asText) return <ObjectPanel key={`${resource.id}:${resource.version}`} projectId={projectId} resource={resource} onText={() => setAsText(true)} />;
  if (/\.csv$/i.test(path) && !asText) {
    return (
      <div className="table-panel">
        <div className="toolbar">
          <span className="status">{path} is not registered as a table yet.</span>
          <button type="button" onClick={() => setAsText(true)}>
            Open as text instead
          </button>
        </div>
        <RegisterTablePanel projectId={projectId} path={path} onRegistered={(r) => setResource(r)} />
      </div>
    );
  }
  if (asText && resource && (table || resource.kind === "object")) {
    // A registered file read as text: the editor on its bytes, and the way back to its viewer.
    return (
      <div className="as-text">
        <div className="toolbar">
          <span className="status">
            {path} as text (registered as {table ? "a table" : "an object"})
          </span>
          <button type="button" onClick={() => setAsText(false)}>
            Back to the {table ? "table" : "object"}
          </button>
        </div>
        {editor(path)}
      </div>
    );
  }
  return <>{editor(path)}</>;
}
