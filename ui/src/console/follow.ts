//! A command's output followed from the last offset read (never from 0 again): `console.output` pages into an OutputModel, the kept tail live.

import { bytesOf } from "../work/log";
import type { OutputModel } from "./lines";
import type { ConsolePage } from "./ops";

export type FetchOutput = (offset: number) => Promise<ConsolePage>;

/**
 * Pulls never overlap (one asked for while one runs is done after it). Offsets count every byte the
 * command wrote, so reading on from the last offset is right while the command runs too (decision
 * 0604): a cut comes when the read reaches the head's end, and again when the kept tail moved on
 * past what was read; then what followed the old cut is no longer kept and is replaced.
 */
export class ConsoleFollower {
  private offset = 0;
  private busy: Promise<boolean> | null = null;
  private again = false;
  complete = false;

  constructor(
    private readonly fetchPage: FetchOutput,
    readonly model: OutputModel,
  ) {}

  get position(): number {
    return this.offset;
  }

  /** Reads what is new. Answers whether rows changed. */
  pull(): Promise<boolean> {
    if (this.busy) {
      this.again = true;
      return this.busy.then(() => false);
    }
    this.busy = this.drain().finally(() => {
      this.busy = null;
    });
    return this.busy.then(async (changed) => {
      if (!this.again) return changed;
      this.again = false;
      return (await this.pull()) || changed;
    });
  }

  private async drain(): Promise<boolean> {
    if (this.complete) return false;
    let changed = false;
    for (let i = 0; i < 64; i++) {
      const page = await this.fetchPage(this.offset);
      if (page.offset !== this.offset) throw new Error(`the output page starts at ${page.offset}, not ${this.offset}`);
      for (const c of page.chunks) {
        changed = true;
        if (c.stream === "cut") {
          this.model.dropFromCut();
          this.model.cut(c.omittedBytes ?? 0);
          continue;
        }
        this.model.add(c.stream, bytesOf(c.bytes ?? ""));
      }
      this.offset = page.nextOffset;
      if (page.complete) {
        this.model.finish();
        this.complete = true;
        return true;
      }
      if (page.chunks.length === 0 || this.offset >= page.size) break;
    }
    return changed;
  }
}
