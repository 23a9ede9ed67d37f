//! The Projects and files panel: list, create and open projects; the selected project's entries as a tree; a file opens in its viewer.

import { useCallback, useEffect, useState, type FormEvent } from "react";
import { call } from "../api/client";
import type { Entry, ProjectListing } from "../api/types";
import { takeFirstPage } from "./prefetch";

export interface ProjectsProps {
  projects: ProjectListing[] | null;
  selected: string | null;
  onSelect: (id: string) => void;
  onRefresh: () => Promise<void>;
  onOpenFile: (path: string) => void;
  /** Bumped when an event says the folder may have changed. */
  revision: number;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function Folder({ projectId, path, onOpenFile, revision }: { projectId: string; path: string | null; onOpenFile: (p: string) => void; revision: number }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<Record<string, boolean>>({});

  useEffect(() => {
    let live = true;
    (async () => {
      const all: Entry[] = [];
      let cursor: string | null = null;
      do {
        const early = cursor === null ? takeFirstPage(projectId, path) : null;
        const page: { entries: Entry[]; next?: string | null } = await (early ?? call("project.entries", { projectId, path, cursor }));
        all.push(...page.entries);
        cursor = page.next ?? null;
      } while (cursor);
      return all;
    })().then(
      (all) => live && setEntries(all.filter((e) => !e.name.startsWith("."))),
      (e: unknown) => live && setError(message(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, path, revision]);

  if (error) return <p role="alert">Could not list {path ?? "the project"}: {error}</p>;
  if (!entries) return <p className="muted">Listing…</p>;
  if (entries.length === 0) return <p className="muted">This folder is empty.</p>;
  return (
    <ul className="tree">
      {entries.map((e) =>
        e.kind === "directory" ? (
          <li key={e.path}>
            <button type="button" className="entry dir" aria-expanded={open[e.path] === true} onClick={() => setOpen({ ...open, [e.path]: !open[e.path] })}>
              <span aria-hidden="true">{open[e.path] ? "▾" : "▸"}</span> {e.name}/
            </button>
            {open[e.path] && <Folder projectId={projectId} path={e.path} onOpenFile={onOpenFile} revision={revision} />}
          </li>
        ) : (
          <li key={e.path}>
            <button type="button" className="entry file" onClick={() => onOpenFile(e.path)}>
              {e.name}
              {typeof e.bytes === "number" && <span className="muted"> {e.bytes} B</span>}
            </button>
          </li>
        ),
      )}
    </ul>
  );
}

export function ProjectsPanel({ projects, selected, onSelect, onRefresh, onOpenFile, revision }: ProjectsProps) {
  const [name, setName] = useState("");
  const [folder, setFolder] = useState("");
  const [problem, setProblem] = useState<string | null>(null);

  const act = useCallback(
    async (e: FormEvent, what: () => Promise<{ id: string }>) => {
      e.preventDefault();
      setProblem(null);
      try {
        const p = await what();
        await onRefresh();
        onSelect(p.id);
      } catch (err) {
        setProblem(message(err));
      }
    },
    [onRefresh, onSelect],
  );

  return (
    <div className="panel-body projects">
      <h2 id="projects-heading">Projects</h2>
      {projects === null ? (
        <p className="muted">Loading projects…</p>
      ) : projects.length === 0 ? (
        <p>No projects yet. Create one below, or open a folder that is already inside the projects folder.</p>
      ) : (
        <ul className="project-list" aria-labelledby="projects-heading">
          {projects.map((p) => (
            <li key={p.id}>
              <button type="button" aria-current={p.id === selected ? "true" : undefined} disabled={!p.available} onClick={() => onSelect(p.id)} title={p.path}>
                {p.name}
                {!p.available && <span className="muted"> (unavailable: {p.reason})</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
      {selected && (
        <section aria-labelledby="files-heading">
          <h2 id="files-heading">Files</h2>
          <Folder projectId={selected} path={null} onOpenFile={onOpenFile} revision={revision} />
        </section>
      )}
      <form onSubmit={(e) => void act(e, () => call("project.create", { name: name.trim() }))}>
        <label htmlFor="new-project">New project name</label>
        <div className="row">
          <input id="new-project" value={name} onChange={(e) => setName(e.target.value)} required />
          <button type="submit">Create</button>
        </div>
      </form>
      <form onSubmit={(e) => void act(e, () => call("project.open", { path: folder.trim() }))}>
        <label htmlFor="open-folder">Open a folder (relative to the projects folder)</label>
        <div className="row">
          <input id="open-folder" value={folder} onChange={(e) => setFolder(e.target.value)} required />
          <button type="submit">Open</button>
        </div>
      </form>
      {problem && <p role="alert">{problem}</p>}
    </div>
  );
}
