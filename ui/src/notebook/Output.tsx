//! One cell's output in printed order (each stream marked), the cut, and its plots as images named by cell and page.

import { useEffect, useState } from "react";
import { call } from "../api/client";
import type { CellView, Stream } from "./ops";
import { replacedInWords } from "./model";

const STREAM_LABEL: Record<Stream, string> = { stdout: "", stderr: "stderr", message: "message", warning: "warning", error: "error" };

/** PNGs already fetched, by digest (a plot's bytes never change under its digest). */
const pngs = new Map<string, string>();

function Plot({ projectId, cell, index, cells }: { projectId: string; cell: CellView; index: number; cells: CellView[] }) {
  const rec = cell.plots[index];
  const digest = rec?.digest ?? "";
  const [src, setSrc] = useState<string | null>(pngs.get(digest) ?? null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!digest || pngs.has(digest)) return;
    call("kernel.plot", { projectId, cellId: cell.cellId, index }).then(
      (r) => {
        // A blob: URL (the app's CSP admits `img-src 'self' blob:`, not data: URLs).
        const bytes = Uint8Array.from(atob(r.png), (ch) => ch.charCodeAt(0));
        const url = URL.createObjectURL(new Blob([bytes], { type: "image/png" }));
        pngs.set(digest, url);
        setSrc(url);
      },
      (e: unknown) => setProblem(e instanceof Error ? e.message : String(e)),
    );
  }, [projectId, cell.cellId, index, digest]);
  if (!rec) return null;
  const replaced = replacedInWords(rec.replaces, cells);
  const alt = `Plot ${index + 1} of cell ${cell.no}, page ${rec.page}${replaced ? `, ${replaced}` : ""}`;
  return (
    <figure className="nb-plot">
      {src ? <img src={src} alt={alt} width={336} height={240} /> : <p className="muted">{problem ? `The plot could not be read: ${problem}` : "Loading the plot…"}</p>}
      <figcaption className="muted small">
        {alt} ({Math.round(rec.bytes / 1024)} KiB)
      </figcaption>
    </figure>
  );
}

export function Output({ projectId, cell, cells }: { projectId: string; cell: CellView; cells: CellView[] }) {
  return (
    <div className="nb-output">
      {cell.output.length > 0 && (
        <pre className="nb-printed" data-testid={`nb-output-${cell.no}`} tabIndex={0} role="group" aria-label={`Output of cell ${cell.no}`}>
          {cell.output.map((o, i) => (
            <span key={i} className={`nb-${o.stream}`} data-stream={o.stream}>
              {STREAM_LABEL[o.stream] && <span className="nb-tag">{STREAM_LABEL[o.stream]}: </span>}
              {o.text}
            </span>
          ))}
        </pre>
      )}
      {cell.cut && <p className="nb-cut">Output cut here: {cell.omittedBytes.toLocaleString()} more bytes were printed and not kept.</p>}
      {cell.notes.map((n, i) => (
        <p key={i} className="muted small">
          {n}
        </p>
      ))}
      {cell.plots.map((_, i) => (
        <Plot key={i} projectId={projectId} cell={cell} index={i} cells={cells} />
      ))}
    </div>
  );
}
