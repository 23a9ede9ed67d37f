//! One command's output: followed as it arrives, coloured by the lazily loaded SGR parser, virtualised rows, the cut shown, new lines summarised politely.

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, useState, type CSSProperties } from "react";
import { call } from "../api/client";
import { onWork } from "../work/bus";
import { ConsoleFollower } from "./follow";
import { OutputModel, type Parser, type Row } from "./lines";
import { LIVE, type CommandView } from "./ops";
import type { Run } from "./sgr";

const ROW_H = 18;

// The parser is its own chunk, loaded when the first output is shown.
let parserChunk: Promise<Parser> | null = null;
const parser = () => (parserChunk ??= import("./sgr").then((m) => ({ parse: m.parse, initial: m.initial })));

function RunSpan({ run }: { run: Run }) {
  const s = run.style;
  let [fg, bg] = [s.fg, s.bg];
  if (s.inverse) [fg, bg] = [bg ?? "inv-fg", fg ?? "inv-bg"];
  const cls: string[] = [];
  const style: CSSProperties = {};
  if (fg?.startsWith("rgb")) style.color = fg;
  else if (fg) cls.push(`fg-${fg}`);
  if (bg?.startsWith("rgb")) style.backgroundColor = bg;
  else if (bg) cls.push(`bg-${bg}`);
  if (bg && !fg) cls.push("on-bg");
  if (s.bold) cls.push("b");
  if (s.dim) cls.push("dim");
  if (s.italic) cls.push("i");
  if (s.underline) cls.push("u");
  if (cls.length === 0 && !fg && !bg) return <>{run.text}</>;
  return (
    <span className={cls.join(" ")} style={style}>
      {run.text}
    </span>
  );
}

function RowView({ row }: { row: Row }) {
  if (row.kind === "cut")
    return (
      <span className="cut" data-testid="console-cut">
        {`— ${row.omitted.toLocaleString("en")} bytes not kept (between the head and the tail) —`}
      </span>
    );
  return (
    <>
      <span className="gutter">{row.stream === "stderr" ? "err" : ""}</span>
      {row.runs.map((r, i) => (
        <RunSpan key={i} run={r} />
      ))}
      {row.more ? <span className="muted-more">↩</span> : null}
    </>
  );
}

export function Output({ projectId, command }: { projectId: string; command: CommandView }) {
  const id = command.commandId;
  const ended = !LIVE.includes(command.state);
  const [follower, setFollower] = useState<ConsoleFollower | null>(null);
  const [, setRevision] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [announce, setAnnounce] = useState("");
  const scroller = useRef<HTMLDivElement | null>(null);
  const atEnd = useRef(true);
  const endedRef = useRef(ended);
  endedRef.current = ended;

  useEffect(() => {
    let live = true;
    setFollower(null);
    setError(null);
    setAnnounce("");
    let off = () => {};
    void parser().then((p) => {
      if (!live) return;
      const f = new ConsoleFollower((offset) => call("console.output", { projectId, commandId: id, offset }), new OutputModel(p));
      setFollower(f);
      const pull = () =>
        f.pull().then(
          (changed) => {
            if (!live || !changed) return;
            setRevision((r) => r + 1);
            const s = f.model.summary();
            if (s) setAnnounce(s);
          },
          (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
        );
      pull();
      off = onWork((kind, data) => {
        if (kind !== "console.changed" || data["commandId"] !== id) return;
        const n = data["outputBytes"];
        if (typeof n !== "number" || n > f.position || endedRef.current) pull();
      });
    });
    return () => {
      live = false;
      off();
    };
  }, [projectId, id]);

  // The last read once the record says it ended (its last bytes and a final tail).
  useEffect(() => {
    if (!ended || !follower) return;
    void follower.pull().then((changed) => changed && setRevision((r) => r + 1));
  }, [ended, follower]);

  const model = follower?.model ?? null;
  const count = model?.count ?? 0;
  const rows = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_H, overscan: 12 });

  useEffect(() => {
    if (atEnd.current && count > 0) rows.scrollToIndex(count - 1, { align: "end" });
  }, [count, rows]);

  const cutRow = model?.cutRow() ?? -1;
  const label = `Output of ${command.command}`;
  return (
    <section className="console-output" aria-label={label}>
      {error && <p role="alert">Could not read the output: {error}</p>}
      <div className="toolbar">
        <span className="muted">
          {model === null ? "Loading the output…" : count === 0 ? (ended ? "No output." : "No output yet.") : `${count.toLocaleString("en")} row${count === 1 ? "" : "s"}`}
          {model !== null && model.hasStderr() ? "; stdout and stderr are two pipes: between them, the order is the order Rho read them" : ""}
        </span>
        {cutRow >= 0 && (
          <button type="button" onClick={() => rows.scrollToIndex(cutRow, { align: "center" })}>
            Go to the cut
          </button>
        )}
      </div>
      <div
        ref={scroller}
        className="console-out"
        role="log"
        aria-live="off"
        aria-label={label}
        tabIndex={0}
        data-testid="console-log"
        onScroll={(e) => {
          const el = e.currentTarget;
          atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_H * 2;
        }}
      >
        <div style={{ height: rows.getTotalSize(), position: "relative" }}>
          {model &&
            rows.getVirtualItems().map((v) => {
              const row = model.row(v.index);
              if (!row) return null;
              return (
                <div key={v.index} className={`row ${row.kind === "cut" ? "cut-row" : row.stream}`} data-stream={row.kind === "cut" ? "cut" : row.stream} style={{ transform: `translateY(${v.start}px)` }}>
                  <RowView row={row} />
                </div>
              );
            })}
        </div>
      </div>
      <p className="sr-only" role="status" aria-live="polite" data-testid="console-announce">
        {announce}
      </p>
    </section>
  );
}
