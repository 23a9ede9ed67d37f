//! ANSI SGR colours: a small streaming parser from terminal text to styled runs (other escapes are dropped).

/** The style of a run: a palette class (`c0`..`c15`) or an `rgb(...)` colour, and the attributes. */
export interface Style {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

export interface Run {
  text: string;
  style: Style;
}

/** What carries over from one chunk to the next: the style and an escape cut at the chunk's end. */
export interface SgrState {
  style: Style;
  pending: string;
}

export const PLAIN: Style = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false };

export function initial(): SgrState {
  return { style: PLAIN, pending: "" };
}

/** Whether a style is the plain one (no class or colour needed). */
export function isPlain(s: Style): boolean {
  return s.fg === null && s.bg === null && !s.bold && !s.dim && !s.italic && !s.underline && !s.inverse;
}

/** xterm's 256-colour cube and grey ramp (0..15 are the palette classes). */
function colour256(n: number): string | null {
  if (!Number.isInteger(n) || n < 0 || n > 255) return null;
  if (n < 16) return `c${n}`;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const step = (k: number) => (k === 0 ? 0 : 55 + k * 40);
  return `rgb(${step(Math.floor(i / 36))},${step(Math.floor(i / 6) % 6)},${step(i % 6)})`;
}

/** One SGR sequence's parameters applied to a style. */
export function apply(style: Style, params: string): Style {
  const s = { ...style };
  const p = params === "" ? [0] : params.split(/[;:]/).map((x) => (x === "" ? 0 : Number(x)));
  for (let i = 0; i < p.length; i++) {
    const n = p[i] ?? 0;
    if (n === 0) Object.assign(s, PLAIN);
    else if (n === 1) s.bold = true;
    else if (n === 2) s.dim = true;
    else if (n === 3) s.italic = true;
    else if (n === 4) s.underline = true;
    else if (n === 7) s.inverse = true;
    else if (n === 22) s.bold = s.dim = false;
    else if (n === 23) s.italic = false;
    else if (n === 24) s.underline = false;
    else if (n === 27) s.inverse = false;
    else if (n >= 30 && n <= 37) s.fg = `c${n - 30}`;
    else if (n >= 90 && n <= 97) s.fg = `c${n - 90 + 8}`;
    else if (n === 39) s.fg = null;
    else if (n >= 40 && n <= 47) s.bg = `c${n - 40}`;
    else if (n >= 100 && n <= 107) s.bg = `c${n - 100 + 8}`;
    else if (n === 49) s.bg = null;
    else if (n === 38 || n === 48) {
      let c: string | null = null;
      if (p[i + 1] === 5) {
        c = colour256(p[i + 2] ?? -1);
        i += 2;
      } else if (p[i + 1] === 2) {
        const [r, g, b] = [p[i + 2], p[i + 3], p[i + 4]].map((v) => Math.max(0, Math.min(255, v ?? 0)));
        c = `rgb(${r},${g},${b})`;
        i += 4;
      }
      if (n === 38) s.fg = c;
      else s.bg = c;
    }
  }
  return s;
}

/**
 * Splits `text` into styled runs. SGR (`ESC [ … m`) changes the style; any other CSI, OSC
 * (`ESC ] … BEL` or `ESC \`) or two-byte escape is dropped. An escape cut at the end is kept in
 * the state and finished by the next chunk.
 */
export function parse(text: string, state: SgrState): { runs: Run[]; state: SgrState } {
  const src = state.pending + text;
  const runs: Run[] = [];
  let style = state.style;
  let plain = "";
  const flush = () => {
    if (plain) runs.push({ text: plain, style });
    plain = "";
  };
  let i = 0;
  while (i < src.length) {
    const esc = src.indexOf("\u001b", i);
    if (esc < 0) {
      plain += src.slice(i);
      i = src.length;
      break;
    }
    plain += src.slice(i, esc);
    const kind = src[esc + 1];
    if (kind === undefined) return done(esc);
    if (kind === "[") {
      let j = esc + 2;
      while (j < src.length && !/[\u0040-\u007e]/.test(src[j] ?? "")) j++;
      if (j >= src.length) return done(esc);
      if (src[j] === "m") {
        flush();
        style = apply(style, src.slice(esc + 2, j));
      }
      i = j + 1;
    } else if (kind === "]") {
      const bel = src.indexOf("\u0007", esc + 2);
      const st = src.indexOf("\u001b\\", esc + 2);
      const end = bel < 0 ? st : st < 0 ? bel : Math.min(bel, st);
      if (end < 0) return done(esc);
      i = end === bel ? bel + 1 : st + 2;
    } else {
      i = esc + 2;
    }
  }
  return done(src.length);

  function done(cut: number) {
    flush();
    return { runs, state: { style, pending: src.slice(cut) } };
  }
}
