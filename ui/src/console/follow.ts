//! A command's output followed from the last offset read (never from 0 again): `console.output` pages into an OutputModel, the kept tail read once it is final.

import { bytesOf } from "../work/log";
import type { OutputModel } from "./lines";
import type { ConsolePage } from "./ops";

export type FetchOutput = (offset: number) => Promise<ConsolePage>;

/**
 * Pulls never overlap (one asked for while one runs is done after it). While the command runs,
 * output past the head is a moving tail: the follower stops at the cut and, once the command has
 * ended, reads from the cut again (the head is never read twice).
 */
export class ConsoleFollower {
  private offset = 0;
  private cutAt: number | null = null;
  private tailFinal = false;
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

  /** Whether the tail is held back until the command ends. */
  get waitingForTail(): boolean {
    return this.cutAt !== null && !this.tailFinal;
  }

  /** Reads what is new; `ended`: the command's record says it ended. Answers whether rows changed. */
  pull(ended: boolean): Promise<boolean> {
    if (this.busy) {
      this.again = true;
      return this.busy.then(() => false);
    }
    this.busy = this.drain(ended).finally(() => {
      this.busy = null;
    });
    return this.busy.then(async (changed) => {
      if (!this.again) return changed;
      this.again = false;
      return (await this.pull(ended)) || changed;
    });
  }

  private async drain(ended: boolean): Promise<boolean> {
    if (this.complete) return false;
    if (this.waitingForTail) {
      if (!ended) return false;
      this.model.dropFromCut();
      this.offset = this.cutAt ?? this.offset;
      this.tailFinal = true;
    }
    let changed = false;
    for (let i = 0; i < 64; i++) {
      const page = await this.fetchPage(this.offset);
      if (page.offset !== this.offset) throw new Error(`the output page starts at ${page.offset}, not ${this.offset}`);
      let at = page.offset;
      for (const c of page.chunks) {
        changed = true;
        if (c.stream === "cut") {
          const final = ended || page.complete;
          this.model.cut(final ? (c.omittedBytes ?? 0) : null);
          if (!final) {
            this.cutAt = at;
            this.offset = at;
            return true;
          }
          this.cutAt = at;
          this.tailFinal = true;
          continue;
        }
        const bytes = bytesOf(c.bytes ?? "");
        this.model.add(c.stream, bytes);
        at += bytes.length;
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
