//! The app shell: who this tab is (or the access screen), the live stream, the projects and the open editors.

import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { call, whoami } from "../api/client";
import { ApiError } from "../api/errors";
import { LiveEvents } from "../api/events";
import type { ProjectListing, Whoami } from "../api/types";
import { resyncSelections, selectionChanged } from "../data/selection";
import { documentChanged, resyncAll } from "./documents";
import { FileView, PLOT } from "./FileView";
import { Layout, useF6, type PanelSpec } from "./Layout";
import { prefetch } from "./prefetch";
import { ProjectsPanel } from "./Projects";
import { publishWork, setOpener, setShower } from "../work/bus";
import { mediaFormat } from "../work/media";

// CodeMirror is outside the initial bundle; its chunk starts loading at once, in parallel with
// the first calls, and the first editor waits for it.
const editorChunk = import("./Editor");
const EditorPanel = lazy(() => editorChunk.then((m) => ({ default: m.EditorPanel })));
const HistoryPanel = lazy(() => import("./History").then((m) => ({ default: m.HistoryPanel })));
const RunsPanel = lazy(() => import("./Runs").then((m) => ({ default: m.RunsPanel })));
const AgentPanel = lazy(() => import("./Agent").then((m) => ({ default: m.AgentPanel })));
const ConsolePanel = lazy(() => import("./Console").then((m) => ({ default: m.ConsolePanel })));
const NotebookPanel = lazy(() => import("./Notebook").then((m) => ({ default: m.NotebookPanel })));
const ConversationsPanel = lazy(() => import("./Conversations").then((m) => ({ default: m.ConversationsPanel })));
const MediaPanel = lazy(() => import("./Media").then((m) => ({ default: m.MediaPanel })));

const LAST_PROJECT = "rho.project";
const layoutKey = (projectId: string) => `rho.layout.${projectId}`;

interface Saved {
  files: string[];
  active: string;
  /** The History panels open (files whose past versions show); absent in layouts saved before them. */
  histories?: string[];
}

function load(projectId: string): Saved | null {
  try {
    const v = JSON.parse(localStorage.getItem(layoutKey(projectId)) ?? "null") as Saved | null;
    return v && Array.isArray(v.files) ? { ...v, histories: Array.isArray(v.histories) ? v.histories : [] } : null;
  } catch {
    return null;
  }
}

function AccessScreen({ problem }: { problem: string }) {
  return (
    <main className="access" data-region="main">
      <h1>This tab has no access to Rho</h1>
      <p role="alert">{problem}</p>
      <ul>
        <li>
          On the computer that runs Rho, open the address <code>rho</code> printed at start (<code>{window.location.origin}/</code>)
          in a browser of the same user: that needs no link or code.
        </li>
        <li>
          For a narrower or expiring tab, run <code>rho --pair CONNECTION_FILE</code> and open the new link within five minutes;
          each link works once. An old link or cookie never widens access: close this tab and open the new link.
        </li>
      </ul>
    </main>
  );
}

export function App() {
  const [me, setMe] = useState<Whoami | null>(null);
  const [denied, setDenied] = useState<string | null>(null);
  const [projects, setProjects] = useState<ProjectListing[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [files, setFiles] = useState<string[]>([]);
  const [active, setActive] = useState("projects");
  // The project whose remembered layout is restored: until then no project panel is added, so
  // the remembered editor is the first panel of its group (not Runs or Agent, which would
  // mount first and hold up the first render).
  const [laidOut, setLaidOut] = useState<string | null>(null);
  const [histories, setHistories] = useState<string[]>([]);
  const [live, setLive] = useState(false);
  const [revision, setRevision] = useState(0);
  useF6();

  const refresh = useCallback(async () => {
    const r = await call("project.list", {});
    setProjects(r.projects);
    return r.projects;
  }, []);

  useEffect(() => {
    // The remembered project's files and buffers start now, with who-am-I and the projects.
    const last = localStorage.getItem(LAST_PROJECT);
    if (last) prefetch(last, load(last)?.files ?? []);
    // Who the tab is and the projects, in parallel (a refusal of either is the access screen).
    const list = refresh();
    list.catch(() => undefined);
    whoami()
      .then(async (w) => {
        setMe(w);
        const projects = await list;
        const remembered = localStorage.getItem(LAST_PROJECT);
        const usable = projects.filter((p) => p.available);
        const first = usable.find((p) => p.id === remembered) ?? usable.find((p) => p.name === "example") ?? usable[0];
        if (first) setSelected(first.id);
      })
      .catch((e: unknown) => {
        if (e instanceof ApiError && (e.code === "unauthorized" || e.code === "forbidden")) setDenied(e.message);
        else setDenied(`Rho did not answer: ${e instanceof Error ? e.message : String(e)}`);
      });
  }, [refresh]);

  // A project's layout: remembered in this browser, or on a first visit its top-level script and,
  // beside it, its top-level table (the example project's shape: a new user sees both at once).
  useEffect(() => {
    if (!selected) return;
    localStorage.setItem(LAST_PROJECT, selected);
    const saved = load(selected);
    setLaidOut(selected);
    if (saved) {
      setFiles(saved.files);
      setHistories(saved.histories ?? []);
      setActive(saved.active);
      return;
    }
    setFiles([]);
    setHistories([]);
    setActive("projects");
    call("project.entries", { projectId: selected }).then(
      (r) => {
        const script = r.entries.find((e) => e.kind !== "directory" && /\.(r|py)$/i.test(e.name));
        const table = r.entries.find((e) => e.kind !== "directory" && /\.(csv|tsv)$/i.test(e.name));
        if (script) {
          setFiles(table ? [script.path, table.path] : [script.path]);
          setActive(`file:${script.path}`);
        }
      },
      () => undefined,
    );
  }, [selected]);

  useEffect(() => {
    if (selected && laidOut === selected) localStorage.setItem(layoutKey(selected), JSON.stringify({ files, active, histories }));
  }, [selected, laidOut, files, active, histories]);

  useEffect(() => {
    if (!selected) return;
    const events = new LiveEvents(
      selected,
      (kind, data) => {
        if (kind === "document.changed") documentChanged(data);
        if (kind === "selection.changed") selectionChanged(selected, data);
        if (kind === "resource.changed" || kind === "project.changed") setRevision((r) => r + 1);
        publishWork(kind, data);
      },
      async () => {
        await Promise.all([resyncAll(), resyncSelections(selected)]);
        setRevision((r) => r + 1);
        // The work panels re-read what they show (events were missed).
        publishWork("gap", {});
      },
      setLive,
    );
    events.start().catch(() => setLive(false));
    return () => events.stop();
  }, [selected]);

  const openFile = useCallback((path: string) => {
    setFiles((f) => (f.includes(path) ? f : [...f, path]));
    setActive(`file:${path}`);
  }, []);

  const openHistory = useCallback((path: string) => {
    setHistories((h) => (h.includes(path) ? h : [...h, path]));
    setActive(`history:${path}`);
  }, []);

  useEffect(() => {
    setShower(setActive);
    setOpener(openFile);
    return () => {
      setShower(null);
      setOpener(null);
    };
  }, [openFile]);

  const close = useCallback((id: string) => {
    if (id.startsWith("history:")) {
      setHistories((h) => h.filter((p) => `history:${p}` !== id));
      setActive((a) => (a === id ? "projects" : a));
    }
    if (!id.startsWith("file:")) return;
    setFiles((f) => f.filter((p) => `file:${p}` !== id));
    setActive((a) => (a === id ? "projects" : a));
  }, []);

  const project = projects?.find((p) => p.id === selected) ?? null;
  const panels: PanelSpec[] = useMemo(() => {
    const list: PanelSpec[] = [
      {
        id: "projects",
        title: "Projects",
        render: () => (
          <ProjectsPanel projects={projects} selected={selected} onSelect={setSelected} onRefresh={async () => void (await refresh())} onOpenFile={openFile} revision={revision} />
        ),
      },
    ];
    if (selected && laidOut === selected) {
      const work = (id: string, title: string, body: () => ReactNode) =>
        list.push({ id, title, render: () => <Suspense fallback={<p className="panel-body">Loading…</p>}>{body()}</Suspense> });
      for (const path of files) {
        const title = path.startsWith(PLOT) ? `Scatter of ${path.slice(PLOT.length).split("/").pop() ?? path}` : (path.split("/").pop() ?? path);
        if (mediaFormat(path)) work(`file:${path}`, title, () => <MediaPanel key={`${selected}:${path}`} projectId={selected} path={path} />);
        else
          list.push({
            id: `file:${path}`,
            title,
            render: () => (
              <FileView
                key={`${selected}:${path}`}
                projectId={selected}
                entry={path}
                revision={revision}
                onOpen={openFile}
                editor={(p) => (
                  <Suspense fallback={<p className="panel-body">Loading the editor…</p>}>
                    <EditorPanel key={`${selected}:${p}`} projectId={selected} path={p} onHistory={() => openHistory(p)} />
                  </Suspense>
                )}
              />
            ),
          });
      }
      for (const path of histories) {
        list.push({
          id: `history:${path}`,
          title: `History: ${path.split("/").pop() ?? path}`,
          render: () => (
            <Suspense fallback={<p className="panel-body">Loading the history…</p>}>
              <HistoryPanel key={`${selected}:${path}`} projectId={selected} path={path} />
            </Suspense>
          ),
        });
      }
      work("runs", "Runs", () => <RunsPanel key={selected} projectId={selected} />);
      work("agent", "Agent", () => <AgentPanel key={selected} projectId={selected} paired={me?.kind === "paired"} />);
      work("console", "Console", () => <ConsolePanel key={selected} projectId={selected} paired={me?.kind === "paired"} />);
      work("notebook", "Notebook", () => <NotebookPanel key={selected} projectId={selected} paired={me?.kind === "paired"} />);
      work("conversations", "Conversations", () => <ConversationsPanel key={selected} projectId={selected} paired={me?.kind === "paired"} />);
    }
    return list;
  }, [projects, selected, laidOut, files, histories, refresh, openFile, openHistory, revision, me]);

  if (denied) return <AccessScreen problem={denied} />;
  if (!me) return <p className="loading">Connecting to Rho…</p>;
  return (
    <div className="app">
      <header data-region="header">
        <h1>Rho</h1>
        <span className="project">{project ? project.name : "No project open"}</span>
        <span className="who" data-testid="who">
          {me.kind === "local"
            ? "Local browser (this computer's user), all projects"
            : // A paired tab is told its project by name, never the folder's place on this computer.
              `Paired tab, ${me.folder ? (project ? `project ${project.name} only` : "one project only") : "all projects"}`}
        </span>
        {/* The live stream is a project's: with none open there is nothing to reconnect. */}
        {selected && (
          <span className={live ? "live on" : "live"} role="status">
            {live ? "Live" : "Reconnecting…"}
          </span>
        )}
      </header>
      <main data-region="main" aria-label="Workspace">
        <Layout panels={panels} active={active} onActive={setActive} onClose={close} memory={selected && laidOut === selected ? selected : null} />
      </main>
    </div>
  );
}
