//! A run's log followed as it grows: `action.output` pages decoded by one streaming TextDecoder, only new text handed on.

import type { OutputPage } from "./ops";

export type FetchPage = (offset: number) => Promise<OutputPage>;

/** Base64 to bytes (the wire's encoding of output). */
export function bytesOf(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Reads one stream from `offset` 0 onwards. `pull` reads every page up to the log's current size
 * and returns the text that is new since the last pull (a UTF-8 sequence split across pages is
 * held by the decoder until its last byte arrives). Pulls never overlap: a pull asked for while
 * one runs is done once after it.
 */
export class LogFollower {
  private decoder = new TextDecoder("utf-8");
  private offset = 0;
  private busy: Promise<string> | null = null;
  private again = false;
  truncated = false;

  constructor(private readonly fetchPage: FetchPage) {}

  get position(): number {
    return this.offset;
  }

  pull(): Promise<string> {
    if (this.busy) {
      this.again = true;
      return this.busy.then(() => "");
    }
    this.busy = this.drain().finally(() => {
      this.busy = null;
    });
    return this.busy.then(async (text) => {
      if (!this.again) return text;
      this.again = false;
      return text + (await this.pull());
    });
  }

  private async drain(): Promise<string> {
    let text = "";
    for (let i = 0; i < 64; i++) {
      const page = await this.fetchPage(this.offset);
      if (page.offset !== this.offset) throw new Error(`the log page starts at ${page.offset}, not ${this.offset}`);
      const bytes = bytesOf(page.bytes);
      if (bytes.length > 0) text += this.decoder.decode(bytes, { stream: true });
      this.offset = page.nextOffset;
      this.truncated = page.truncated;
      if (bytes.length === 0 || this.offset >= page.size) break;
    }
    return text;
  }
}
