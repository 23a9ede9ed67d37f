//! The Editor panel (`rho.editor`): CodeMirror 6 on a shared buffer through the binding; shared undo, save and the conflict choice.

import { defaultKeymap } from "@codemirror/commands";
import { Annotation, EditorState, Transaction } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";
import { startTransition, useEffect, useMemo, useRef, useState } from "react";
import type { BindingStatus } from "../sync/binding";
import { openDocument, type OpenDoc } from "./documents";
import { RunScript } from "../work/RunScript";
import { languageFor } from "./highlight";
import { authorMarks, marksFor } from "./marks";
import { directTyping, Sent } from "./typing";
import { listenShown, StatusFeed } from "./statusFeed";

const Remote = Annotation.define<boolean>();

export interface EditorParams {
  projectId: string;
  path: string;
  /** Opens this buffer's History panel. */
  onHistory?: () => void;
}

/** The feed's status in a component of its own, updated as a transition: a keystroke re-renders
 * only this, after its edit has left and its answer has been read (decisions 0418, 0419). */
function useStatus(feed: StatusFeed): BindingStatus | null {
  const [status, setStatus] = useState<BindingStatus | null>(feed.current);
  useEffect(() => listenShown(feed, (s) => startTransition(() => setStatus(s))), [feed]);
  return status;
}

function StatusText({ feed }: { feed: StatusFeed }) {
  const status = useStatus(feed);
  return (
    <span className="status" role="status" data-testid="editor-status">
      {describe(status)}
    </span>
  );
}

function ProblemAlert({ feed }: { feed: StatusFeed }) {
  const status = useStatus(feed);
  if (!status?.problem) return null;
  return (
    <p className="problem" role="alert">
      Refused: {status.problem}
    </p>
  );
}

function describe(s: BindingStatus | null): string {
  if (!s) return "Opening…";
  const parts = [`Version ${s.version}`];
  if (s.offline) parts.push("the service is not answering; your changes wait and will be resent");
  else if (s.unsent) parts.push("sending…");
  else parts.push(s.dirty ? "unsaved changes" : "saved");
  if (s.changedOnDisk) parts.push("the file changed on disk meanwhile");
  if (s.lastAuthor) parts.push(`last change by ${s.lastAuthor}`);
  return parts.join(" · ");
}

export function EditorPanel({ projectId, path, onHistory }: EditorParams) {
  const host = useRef<HTMLDivElement>(null);
  const [doc, setDoc] = useState<OpenDoc | null>(null);
  const [error, setError] = useState<string | null>(null);
  const feed = useMemo(() => new StatusFeed(), []);
  const [note, setNote] = useState<string | null>(null);
  const [conflict, setConflict] = useState<{ message: string; digest: string | null } | null>(null);

  useEffect(() => {
    let live = true;
    openDocument(projectId, path).then(
      (d) => live && setDoc(d),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, path]);

  const save = async (baseDigest: string | null = null) => {
    if (!doc) return;
    setNote("Saving…");
    try {
      const out = await doc.binding.save(baseDigest);
      if (out.saved) {
        setConflict(null);
        setNote(`Saved version ${out.version}.`);
      } else {
        setConflict({ message: out.conflict, digest: out.diskDigest });
        setNote(null);
      }
    } catch (e) {
      setNote(`Not saved: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const undo = async () => {
    if (!doc) return;
    const whose = await doc.binding.undo();
    setNote(whose ? `Undid the newest change, by ${whose}.` : "Undid the newest change.");
  };

  const actions = useRef({ save, undo });
  actions.current = { save, undo };

  useEffect(() => {
    if (!doc || !host.current) return;
    const b = doc.binding;
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: b.text(),
        extensions: [
          EditorState.lineSeparator.of("\n"),
          lineNumbers(),
          authorMarks,
          languageFor(path),
          EditorView.lineWrapping,
          directTyping((changes) => b.local(changes)),
          EditorView.contentAttributes.of({ "aria-label": `Editor: ${path}` }),
          keymap.of([
            { key: "Mod-z", run: () => (void actions.current.undo(), true) },
            { key: "Mod-Shift-z", run: () => true },
            { key: "Mod-y", run: () => true },
            { key: "Mod-s", run: () => (void actions.current.save(), true) },
            ...defaultKeymap,
          ]),
          EditorView.updateListener.of((u) => {
            for (const tr of u.transactions) {
              if (tr.docChanged && !tr.annotation(Remote) && !tr.annotation(Sent)) b.local(tr.changes);
            }
          }),
        ],
      }),
    });
    b.attach({
      applyRemote(changes, author) {
        const foreign = author !== null && author !== "local" && !author.startsWith("paired:");
        view.dispatch({
          changes,
          annotations: [Remote.of(true), Transaction.addToHistory.of(false)],
          effects: foreign ? [marksFor(changes, author)] : [],
        });
      },
      composing: () => view.composing,
      changed: (st) => feed.set(st),
    });
    return () => {
      b.attach(null);
      view.destroy();
    };
  }, [doc, path, feed]);

  if (error) {
    return (
      <div className="panel-body" role="alert">
        Could not open {path}: {error}
      </div>
    );
  }
  return (
    <div className="editor-panel">
      <div className="toolbar">
        <button type="button" onClick={() => void save()} disabled={!doc}>
          Save
        </button>
        <button type="button" onClick={() => void undo()} disabled={!doc} title="Reverts the newest change of any author (Ctrl+Z)">
          Undo newest change
        </button>
        {onHistory && (
          <button type="button" onClick={onHistory} disabled={!doc}>
            History
          </button>
        )}
        <RunScript projectId={projectId} documentId={doc?.id ?? ""} binding={doc?.binding ?? null} path={path} />
        <StatusText feed={feed} />
      </div>
      <ProblemAlert feed={feed} />
      {conflict && (
        <div className="conflict" role="alert">
          <p>The file changed on disk since it was opened or saved. Saving now would replace the disk's version.</p>
          <button type="button" onClick={() => void save(conflict.digest)} disabled={!conflict.digest}>
            Overwrite the file on disk
          </button>
          <button type="button" onClick={() => setConflict(null)}>
            Keep editing, do not save
          </button>
        </div>
      )}
      {note && <p className="note">{note}</p>}
      <div className="cm-host" ref={host} data-testid="editor" />
    </div>
  );
}
