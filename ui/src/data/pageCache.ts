//! The table's page cache: 500-row pages of one query in an LRU, fetched around what is visible, stale replies dropped.

import type { FilterSpec, PageReply, PageRow, SortSpec } from "../api/types";

export const PAGE_ROWS = 500;

/** What a page is of: the sort and filter (the resource is fixed per cache). */
export interface Query {
  sort: SortSpec[];
  filter: FilterSpec[];
}

export function queryKey(q: Query): string {
  return JSON.stringify([q.sort, q.filter]);
}

/** Fetches one page: rows `[offset, offset + limit)` of `query`. */
export type Fetch = (query: Query, offset: number, limit: number) => Promise<PageReply>;

/** Pages of the current query, least recently used dropped beyond `capacity`. A reply whose
 * echoed query is not the current one (the person changed sort or filter meanwhile) is dropped. */
export class PageCache {
  private pages = new Map<number, PageRow[]>();
  private inflight = new Set<number>();
  private query: Query = { sort: [], filter: [] };
  private key = queryKey(this.query);
  /** Rows passing the current filter; `null` until a page of this query arrived. */
  total: number | null = null;
  namespace: string | null = null;
  /** The last refusal (shown by the panel), cleared by a good page. */
  error: unknown = null;

  constructor(
    private readonly fetch: Fetch,
    private readonly onChange: () => void,
    readonly capacity = 8,
  ) {}

  /** Switches to a new sort/filter: every page is of the old query, so all are dropped. */
  setQuery(q: Query): void {
    const key = queryKey(q);
    if (key === this.key) return;
    this.query = q;
    this.key = key;
    this.pages.clear();
    this.inflight.clear();
    this.total = null;
    this.onChange();
  }

  current(): Query {
    return this.query;
  }

  /** The row at `index`, if its page is here (touching the page, so it stays). */
  row(index: number): PageRow | undefined {
    const p = Math.floor(index / PAGE_ROWS);
    const rows = this.pages.get(p);
    if (!rows) return undefined;
    this.pages.delete(p);
    this.pages.set(p, rows);
    return rows[index - p * PAGE_ROWS];
  }

  has(page: number): boolean {
    return this.pages.has(page);
  }

  size(): number {
    return this.pages.size;
  }

  /** Ensures the pages of rows `[first, last]` and one page either side are here or coming. */
  ensure(first: number, last: number): Promise<void> {
    const lo = Math.max(0, Math.floor(first / PAGE_ROWS) - 1);
    let hi = Math.floor(Math.max(first, last) / PAGE_ROWS) + 1;
    if (this.total !== null) hi = Math.min(hi, Math.max(0, Math.ceil(this.total / PAGE_ROWS) - 1));
    const wanted: Promise<void>[] = [];
    for (let p = lo; p <= hi; p++) {
      if (this.pages.has(p)) {
        const rows = this.pages.get(p);
        if (rows) {
          this.pages.delete(p);
          this.pages.set(p, rows);
        }
      } else if (!this.inflight.has(p)) wanted.push(this.load(p));
    }
    return Promise.all(wanted).then(() => undefined);
  }

  private async load(page: number): Promise<void> {
    const key = this.key;
    this.inflight.add(page);
    try {
      const reply = await this.fetch(this.query, page * PAGE_ROWS, PAGE_ROWS);
      // A reply to an older query (sort or filter changed meanwhile) is not this query's page.
      if (queryKey({ sort: reply.query.sort, filter: reply.query.filter }) !== this.key || key !== this.key) return;
      this.total = reply.total;
      this.namespace = reply.namespace ?? null;
      this.error = null;
      this.pages.set(page, reply.rows);
      while (this.pages.size > this.capacity) {
        const oldest = this.pages.keys().next().value;
        if (oldest === undefined) break;
        this.pages.delete(oldest);
      }
    } catch (e) {
      if (key === this.key) this.error = e;
    } finally {
      if (key === this.key) this.inflight.delete(page);
      this.onChange();
    }
  }
}
