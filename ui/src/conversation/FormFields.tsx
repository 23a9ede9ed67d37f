//! A server's form rendered from its schema: one labelled control per field (text, number, yes/no, one choice, several choices), defaults pre-filled, constraints as help text, the field the service refused marked and named.

import type { FormField } from "./ops";

export type Values = Record<string, unknown>;

/** The form's starting values: each field's default, else empty (a yes/no starts unticked). */
export function initial(fields: FormField[]): Values {
  const out: Values = {};
  for (const f of fields) {
    if (f.default !== null && f.default !== undefined) out[f.name] = f.default;
    else out[f.name] = f.kind === "boolean" ? false : f.kind === "multi" ? [] : "";
  }
  return out;
}

/** The content sent: typed as each field says (a number field sends a number); an empty optional field is left out.
 *  What cannot be typed is sent as typed, so the service names the field. */
export function content(fields: FormField[], values: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === "boolean") out[f.name] = v === true;
    else if (f.kind === "multi") {
      if (Array.isArray(v) && (v.length > 0 || f.required)) out[f.name] = v;
    } else if (typeof v === "number") out[f.name] = v;
    else if (typeof v === "string" && v !== "") {
      if (f.kind === "number" || f.kind === "integer") out[f.name] = Number.isFinite(Number(v)) ? Number(v) : v;
      else out[f.name] = v;
    }
  }
  return out;
}

export function FormFields({ idBase, fields, values, set, wrong, disabled }: { idBase: string; fields: FormField[]; values: Values; set: (name: string, v: unknown) => void; wrong: string | null; disabled: boolean }) {
  return (
    <div className="cv-form-fields">
      {fields.map((f) => {
        const id = `${idBase}-${f.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
        // The service's help already says the description and every constraint in words.
        const help = f.help ?? "";
        const described = help ? `${id}-help` : undefined;
        const invalid = wrong === f.name ? true : undefined;
        const label = (
          <>
            {f.title}
            {f.required && <span className="cv-required"> (required)</span>}
          </>
        );
        const helpText = help ? (
          <span id={`${id}-help`} className="cv-help">
            {help}
          </span>
        ) : null;
        if (f.kind === "multi") {
          const chosen = Array.isArray(values[f.name]) ? (values[f.name] as string[]) : [];
          return (
            <fieldset key={f.name} className="cv-field" aria-describedby={described} aria-invalid={invalid} data-field={f.name}>
              <legend>{label}</legend>
              {f.options.map((o) => (
                <label key={o.value} className="cv-check">
                  <input type="checkbox" disabled={disabled} checked={chosen.includes(o.value)} onChange={(e) => set(f.name, e.target.checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value))} /> {o.label}
                </label>
              ))}
              {helpText}
            </fieldset>
          );
        }
        if (f.kind === "boolean") {
          return (
            <div key={f.name} className="cv-field" data-field={f.name}>
              <label className="cv-check">
                <input id={id} type="checkbox" disabled={disabled} aria-describedby={described} aria-invalid={invalid} checked={values[f.name] === true} onChange={(e) => set(f.name, e.target.checked)} /> {label}
              </label>
              {helpText}
            </div>
          );
        }
        const raw = values[f.name];
        const value = typeof raw === "string" || typeof raw === "number" ? String(raw) : "";
        return (
          <div key={f.name} className="cv-field" data-field={f.name}>
            <label htmlFor={id}>{label}</label>
            {f.kind === "choice" ? (
              <select id={id} disabled={disabled} aria-describedby={described} aria-invalid={invalid} aria-required={f.required} value={value} onChange={(e) => set(f.name, e.target.value)}>
                {!f.required && <option value="">(none)</option>}
                {f.options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                type={f.kind === "text" ? "text" : "number"}
                step={f.kind === "integer" ? 1 : f.kind === "number" ? "any" : undefined}
                inputMode={f.kind === "integer" ? "numeric" : f.kind === "number" ? "decimal" : undefined}
                disabled={disabled}
                aria-describedby={described}
                aria-invalid={invalid}
                aria-required={f.required}
                value={value}
                onChange={(e) => set(f.name, e.target.value)}
              />
            )}
            {helpText}
          </div>
        );
      })}
    </div>
  );
}
