//! pdf.js, loaded only when a PDF is opened: no eval, its worker from the bundle (same origin, allowed by the CSP).

import type { PDFDocumentProxy } from "pdfjs-dist";

/** Opens a PDF from its URL (same origin; pdf.js asks for byte ranges as it needs them). */
export async function openPdf(url: string): Promise<PDFDocumentProxy> {
  const [pdfjs, worker] = await Promise.all([import("pdfjs-dist"), import("pdfjs-dist/build/pdf.worker.min.mjs?url")]);
  pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
  return pdfjs.getDocument({ url, isEvalSupported: false, enableXfa: false }).promise;
}

/** Draws page `n` (from 1) into `canvas` at `cssWidth` CSS px wide; answers the drawn CSS size. */
export async function drawPage(doc: PDFDocumentProxy, n: number, canvas: HTMLCanvasElement, cssWidth: number): Promise<{ width: number; height: number }> {
  const page = await doc.getPage(n);
  const base = page.getViewport({ scale: 1 });
  const scale = cssWidth / base.width;
  const ratio = window.devicePixelRatio || 1;
  const vp = page.getViewport({ scale: scale * ratio });
  canvas.width = Math.floor(vp.width);
  canvas.height = Math.floor(vp.height);
  const css = { width: base.width * scale, height: base.height * scale };
  canvas.style.width = `${css.width}px`;
  canvas.style.height = `${css.height}px`;
  await page.render({ canvas, viewport: vp }).promise;
  return css;
}
