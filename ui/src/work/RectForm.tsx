//! The rectangle as typed numbers in media units (the keyboard alternative to drawing), and the button that points the Agent there.

import type { Rect } from "./ops";

const FIELDS: (keyof Rect)[] = ["x", "y", "width", "height"];

export function RectForm({ rect, units, onChange, problem, onCreate, busy }: { rect: Rect; units: string; onChange: (r: Rect) => void; problem: string | null; onCreate: () => void; busy: boolean }) {
  return (
    <fieldset className="rect-form">
      <legend>Rectangle in {units === "pt" ? "PDF points (pt)" : "pixels (px)"}, from the page's top-left corner</legend>
      <div className="row wrap">
        {FIELDS.map((f) => (
          <label key={f} className="inline">
            {f}{" "}
            <input
              type="number"
              step="any"
              min={0}
              value={Number.isFinite(rect[f]) ? rect[f] : ""}
              onChange={(e) => onChange({ ...rect, [f]: e.target.value === "" ? Number.NaN : Number(e.target.value) })}
              data-testid={`rect-${f}`}
            />
          </label>
        ))}
      </div>
      {problem && <p className="muted">Not yet a rectangle of this page: {problem}.</p>}
      <button type="button" disabled={problem !== null || busy} onClick={onCreate}>
        Point the Agent at this rectangle
      </button>
    </fieldset>
  );
}
