//! The Scatter panel (`rho.scatter`, a lazy chunk with uPlot): `data.plot` of two numeric columns with its sampling stated; a brush or typed ranges select entity keys, linked with the table by key.

import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { call } from "../api/client";
import type { PlotReply, ResourceView, TableDecl } from "../api/types";
import { keysOfPoints, keysOfRange, type Range } from "../data/ranges";
import { select, useSelection } from "../data/selection";

export interface ScatterParams {
  projectId: string;
  resource: ResourceView & { table: TableDecl };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString("en") : n.toPrecision(4);
}

/** The points sorted by x (uPlot's x is ascending), with the selected ones as a second series. */
function series(plot: PlotReply, selected: ReadonlySet<string>): uPlot.AlignedData {
  const order = plot.points.map((_, i) => i).sort((a, b) => (plot.points[a]?.x ?? 0) - (plot.points[b]?.x ?? 0));
  const xs: number[] = [];
  const ys: (number | null)[] = [];
  const sel: (number | null)[] = [];
  for (const i of order) {
    const p = plot.points[i];
    if (!p) continue;
    xs.push(p.x);
    ys.push(p.y);
    sel.push(p.key && selected.has(p.key) ? p.y : null);
  }
  return [xs, ys, sel];
}

export function ScatterPanel({ projectId, resource }: ScatterParams) {
  const id = useId();
  const table = resource.table;
  const numeric = table.columns.filter((c) => c.type === "integer" || c.type === "number");
  const [x, setX] = useState(numeric[0]?.name ?? "");
  const [y, setY] = useState(numeric[1]?.name ?? numeric[0]?.name ?? "");
  const [plot, setPlot] = useState<PlotReply | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [typed, setTyped] = useState({ x0: "", x1: "", y0: "", y1: "" });
  const namespace = table.key?.namespace ?? null;
  const keyColumn = table.key?.column ?? null;
  const selected = useSelection(projectId, namespace);
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const onBrush = useRef<(r: Range) => void>(() => undefined);
  const ref = useMemo(() => ({ id: resource.id, version: resource.version }), [resource.id, resource.version]);

  useEffect(() => {
    if (!x || !y) return;
    let live = true;
    setPlot(null);
    call("data.plot", { projectId, resource: ref, x, y }).then(
      (p) => live && (setPlot(p), setProblem(null)),
      (e: unknown) => live && setProblem(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [projectId, ref, x, y]);

  const choose = async (r: Range, how: string) => {
    if (!plot || !namespace || !keyColumn) return;
    setNote(`Selecting (${how})…`);
    try {
      const axis = (name: string) => ({ column: name, type: table.columns.find((c) => c.name === name)?.type ?? "number" });
      const keys = plot.sampling.sampled ? await keysOfRange(projectId, ref, axis(x), axis(y), keyColumn, r) : keysOfPoints(plot, r);
      await select(projectId, namespace, keys);
      setNote(`${keys.length.toLocaleString("en")} selected by ${how}: ${x} ${fmt(Math.min(r.x0, r.x1))} to ${fmt(Math.max(r.x0, r.x1))}, ${y} ${fmt(Math.min(r.y0, r.y1))} to ${fmt(Math.max(r.y0, r.y1))}${plot.sampling.sampled ? " (over every row, not only the plotted sample)" : ""}`);
    } catch (e) {
      setNote(e instanceof Error ? e.message : String(e));
    }
  };
  onBrush.current = (r) => void choose(r, "brush");

  // The chart: made once per plot, resized with its host, its selection series updated in place.
  useEffect(() => {
    const el = host.current;
    if (!plot || !el) return;
    const width = Math.max(240, el.clientWidth);
    const opts: uPlot.Options = {
      width,
      height: Math.max(220, Math.min(480, Math.round(width * 0.6))),
      mode: 1,
      legend: { show: false },
      cursor: { drag: { x: true, y: true, setScale: false }, points: { show: false } },
      scales: { x: { time: false } },
      axes: [
        { label: x, stroke: "#1b1b1b" },
        { label: y, stroke: "#1b1b1b" },
      ],
      series: [
        {},
        { label: y, stroke: "#3b5b8c", paths: () => null, points: { show: true, size: 4, stroke: "#3b5b8c", fill: "#3b5b8c" } },
        { label: "selected", stroke: "#b34700", paths: () => null, points: { show: true, size: 7, stroke: "#b34700", fill: "#ff9a52" } },
      ],
      hooks: {
        setSelect: [
          (u) => {
            const s = u.select;
            if (s.width < 2 && s.height < 2) return;
            onBrush.current({ x0: u.posToVal(s.left, "x"), x1: u.posToVal(s.left + s.width, "x"), y0: u.posToVal(s.top + s.height, "y"), y1: u.posToVal(s.top, "y") });
            // The chosen points show in the selection colour, not under the brush's shade.
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          },
        ],
      },
    };
    const u = new uPlot(opts, series(plot, new Set()), el);
    chart.current = u;
    const ro = new ResizeObserver(() => {
      const w = Math.max(240, el.clientWidth);
      if (Math.abs(w - u.width) > 4) u.setSize({ width: w, height: Math.max(220, Math.min(480, Math.round(w * 0.6))) });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      chart.current = null;
    };
  }, [plot, x, y]);

  useEffect(() => {
    // With the same points the scales stay; `setData(d, false)` would not redraw at all.
    if (plot && chart.current) chart.current.setData(series(plot, selected));
  }, [plot, selected]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const n = { x0: Number(typed.x0), x1: Number(typed.x1), y0: Number(typed.y0), y1: Number(typed.y1) };
    if (Object.values(typed).some((v) => v.trim() === "") || Object.values(n).some((v) => !Number.isFinite(v))) {
      setNote("Type four numbers: the x and y ranges.");
      return;
    }
    void choose(n, "typed range");
  };

  const s = plot?.sampling;
  const xs = plot?.points.map((p) => p.x) ?? [];
  const ys = plot?.points.map((p) => p.y) ?? [];
  const extent = (v: number[]) => (v.length ? `${fmt(Math.min(...v))} to ${fmt(Math.max(...v))}` : "none");
  const summary = plot
    ? `Scatter of ${y} against ${x} in ${resource.path}: ${plot.points.length.toLocaleString("en")} points, ${x} ${extent(xs)}, ${y} ${extent(ys)}; ${selected.size.toLocaleString("en")} selected.`
    : "Scatter loading";
  const field = (k: keyof typeof typed, label: string) => (
    <div>
      <label htmlFor={`${id}-${k}`}>{label}</label>
      <input id={`${id}-${k}`} inputMode="decimal" value={typed[k]} onChange={(e) => setTyped({ ...typed, [k]: e.target.value })} />
    </div>
  );

  if (numeric.length === 0) return <p className="panel-body">{resource.path} has no integer or number column to plot.</p>;
  return (
    <div className="scatter-panel">
      <div className="toolbar">
        <label className="inline">
          x{" "}
          <select value={x} onChange={(e) => setX(e.target.value)}>
            {numeric.map((c) => (
              <option key={c.name}>{c.name}</option>
            ))}
          </select>
        </label>
        <label className="inline">
          y{" "}
          <select value={y} onChange={(e) => setY(e.target.value)}>
            {numeric.map((c) => (
              <option key={c.name}>{c.name}</option>
            ))}
          </select>
        </label>
        <span className="status" data-testid="sampling">
          {s
            ? s.sampled
              ? `Sampled: every ${s.step.toLocaleString("en")}th of ${s.total.toLocaleString("en")} plottable rows (${s.method}), ${s.returned.toLocaleString("en")} shown`
              : `All ${s.total.toLocaleString("en")} plottable rows shown`
            : "Plotting…"}
          {plot && plot.dropped > 0 ? `; ${plot.dropped.toLocaleString("en")} rows with a missing ${x} or ${y} left out` : ""}
        </span>
      </div>
      {!namespace && <p className="note">This table has no key, so points cannot be selected or linked.</p>}
      {problem && (
        <p role="alert" className="problem">
          {problem}
        </p>
      )}
      <div className="plot-host" ref={host} role="img" aria-label={summary} data-testid="plot" />
      <form className="range-form" onSubmit={submit} aria-label="Select by typed ranges">
        {field("x0", `${x} from`)}
        {field("x1", `${x} to`)}
        {field("y0", `${y} from`)}
        {field("y1", `${y} to`)}
        <button type="submit" disabled={!namespace}>
          Select range
        </button>
        <button type="button" disabled={!namespace || selected.size === 0} onClick={() => namespace && void select(projectId, namespace, [])}>
          Clear selection
        </button>
      </form>
      <p role="status" className="note" data-testid="scatter-status">
        {note ?? `${selected.size.toLocaleString("en")} selected. Drag a rectangle on the plot, or type ranges, to select.`}
      </p>
    </div>
  );
}
