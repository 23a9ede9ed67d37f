//! The Media panel (`rho.media`): a PNG/JPEG/SVG image or a PDF page with alt text from the media facts; a rectangle becomes a context.

import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import type { PDFDocumentProxy } from "pdfjs-dist";
import { call } from "../api/client";
import { bytesUrl, findResource, mediaFormat, registerMedia } from "../work/media";
import type { ContextReply, MediaFacts, Rect, ResourceRef } from "../work/ops";
import { nudge, pageSize, problem, toMedia, toShown, type Size } from "../work/rect";
import { RectForm } from "../work/RectForm";

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const EMPTY: Rect = { x: 0, y: 0, width: Number.NaN, height: Number.NaN };
/** The page and rectangle of each open file survive the panel being hidden (the narrow strip unmounts it). */
const kept = new Map<string, { page: number; rect: Rect }>();

function altText(f: MediaFacts, path: string, page: number): string {
  const name = path.split("/").pop() ?? path;
  if (f.format === "pdf") {
    const p = f.pages?.[page - 1];
    return `${name}, page ${page} of ${f.pages?.length ?? "?"}${p ? `, ${p.width} by ${p.height} pt` : ""}`;
  }
  const size = typeof f.width === "number" && typeof f.height === "number" ? `, ${f.width} by ${f.height} px` : ", no absolute size";
  return `${name}, a ${f.format.toUpperCase()} image${size}`;
}

export function MediaPanel({ projectId, path }: { projectId: string; path: string }) {
  const format = mediaFormat(path);
  const [resource, setResource] = useState<ResourceRef | null>(null);
  const [unregistered, setUnregistered] = useState(false);
  const [facts, setFacts] = useState<MediaFacts | null>(null);
  const [image, setImage] = useState<string | null>(null);
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const key = `${projectId}\u0000${path}`;
  const [page, setPage] = useState(() => kept.get(key)?.page ?? 1);
  const [shown, setShown] = useState<Size | null>(null);
  const [rect, setRect] = useState<Rect>(() => kept.get(key)?.rect ?? EMPTY);
  const [drag, setDrag] = useState<{ x: number; y: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [made, setMade] = useState<ContextReply | null>(null);
  const [busy, setBusy] = useState(false);
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useRef<HTMLDivElement>(null);

  // The resource of this path (latest version), then its facts and bytes.
  useEffect(() => {
    let live = true;
    findResource(projectId, path).then(
      (r) => live && (r ? setResource({ id: r.id, version: r.version }) : setUnregistered(true)),
      (e: unknown) => live && setError(message(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, path]);

  useEffect(() => {
    if (!resource) return;
    let live = true;
    (async () => {
      const f = await call("media.describe", { projectId, resource });
      if (!live) return;
      setFacts(f);
      const url = bytesUrl(projectId, resource);
      if (f.format === "pdf") {
        const { openPdf } = await import("../work/pdf");
        const d = await openPdf(url);
        if (live) setPdf(d);
      } else {
        setImage(url);
      }
    })().catch((e: unknown) => live && setError(message(e)));
    return () => {
      live = false;
    };
  }, [projectId, path, resource]);

  useEffect(() => {
    kept.set(key, { page, rect });
  }, [key, page, rect]);

  // A PDF page drawn at the frame's width.
  useEffect(() => {
    if (!pdf || !canvas.current || !frame.current) return;
    let live = true;
    const width = Math.min(frame.current.clientWidth || 600, 900);
    import("../work/pdf")
      .then(({ drawPage }) => (canvas.current ? drawPage(pdf, page, canvas.current, width) : null))
      .then((s) => live && s && setShown(s))
      .catch((e: unknown) => live && setError(message(e)));
    return () => {
      live = false;
    };
  }, [pdf, page]);

  const size = facts ? pageSize(facts, page) : null;
  const units = facts?.units ?? (format === "pdf" ? "pt" : "px");
  const pages = facts?.pages?.length ?? 1;
  const why = size ? problem(rect, size, units) : "this media has no absolute size";

  const at = (e: PointerEvent<HTMLDivElement>) => {
    const b = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - b.left, y: e.clientY - b.top };
  };
  const onDown = (e: PointerEvent<HTMLDivElement>) => {
    if (!size) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    setDrag(at(e));
  };
  const onMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!drag || !size || !shown) return;
    const p = at(e);
    setRect(toMedia({ x: drag.x, y: drag.y, width: p.x - drag.x, height: p.y - drag.y }, shown, size));
  };
  const onKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (!size) return;
    const base = Number.isFinite(rect.width) ? rect : { x: 0, y: 0, width: size.width / 4, height: size.height / 4 };
    const next = nudge(base, e.key, e.shiftKey, Math.max(1, Math.round(size.width / 100)), size);
    if (next) {
      e.preventDefault();
      setRect(next);
    }
  };

  const create = async () => {
    if (!resource) return;
    setBusy(true);
    try {
      const r = await call("context.create", { projectId, changeId: `ctx-${crypto.randomUUID()}`, media: { resource, page, units, rect } });
      setMade(r);
    } catch (e) {
      setError(`The rectangle was refused: ${message(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const register = async () => {
    if (!format) return;
    try {
      setResource(await registerMedia(projectId, path, format));
      setUnregistered(false);
    } catch (e) {
      setError(message(e));
    }
  };

  if (!format) return <p className="panel-body">{path} is not a PNG, JPEG, SVG or PDF file.</p>;
  const box = size && shown && Number.isFinite(rect.width) && Number.isFinite(rect.height) ? toShown(rect, shown, size) : null;
  return (
    <div className="panel-body media">
      {error && <p role="alert">{error}</p>}
      {unregistered && (
        <p>
          {path} is not registered as media yet.{" "}
          <button type="button" onClick={() => void register()}>
            Register it as {format.toUpperCase()} media
          </button>
        </p>
      )}
      {facts && pages > 1 && (
        <nav className="toolbar" aria-label="Pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <label className="inline">
            Page{" "}
            <input type="number" min={1} max={pages} value={page} onChange={(e) => setPage(Math.min(pages, Math.max(1, Number(e.target.value) || 1)))} />
          </label>
          <span>of {pages}</span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
      <div className="media-frame" ref={frame}>
        <div className="media-stage" onPointerDown={onDown} onPointerMove={onMove} onPointerUp={() => setDrag(null)} data-testid="media-stage">
          {image && facts && <img src={image} alt={altText(facts, path, page)} className={size ? undefined : "sizeless"} onLoad={(e) => setShown({ width: e.currentTarget.clientWidth, height: e.currentTarget.clientHeight })} draggable={false} />}
          {pdf && facts && <canvas ref={canvas} role="img" aria-label={altText(facts, path, page)} />}
          {box && <div className="media-rect" style={{ left: box.x, top: box.y, width: box.width, height: box.height }} aria-hidden="true" />}
        </div>
      </div>
      {facts && !size && <p>This {facts.format.toUpperCase()} has no absolute size, so a rectangle on it cannot be measured.</p>}
      {facts && size && (
        <>
          <p className="muted">
            Draw a rectangle with the pointer, type it below, or focus{" "}
            <button type="button" onKeyDown={onKey} data-testid="rect-keys">
              Move the rectangle by keyboard
            </button>{" "}
            and use the arrows (Shift+arrows resize).
          </p>
          <RectForm rect={rect} units={units} onChange={setRect} problem={why} onCreate={() => void create()} busy={busy} />
        </>
      )}
      <p role="status" data-testid="context-made">
        {made?.media ? `Context ${made.contextId}: page ${made.media.page}, ${made.media.rect.x}, ${made.media.rect.y}, ${made.media.rect.width} x ${made.media.rect.height} ${made.media.units}. The Agent reads it with context.read.` : ""}
      </p>
    </div>
  );
}
