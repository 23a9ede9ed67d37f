//! The table's page cache: pages around what is visible, LRU eviction, and replies to an older query dropped.

import { describe, expect, it } from "vitest";
import type { PageReply } from "../src/api/types";
import { PAGE_ROWS, PageCache, type Query } from "../src/data/pageCache";

const TOTAL = 100_000;

function reply(q: Query, offset: number, limit: number, total = TOTAL): PageReply {
  const rows = [];
  for (let i = offset; i < Math.min(total, offset + limit); i++) rows.push({ key: `k${i}`, cells: { i } });
  return { query: { resource: { id: "r", version: 1 }, offset, limit, sort: q.sort, filter: q.filter }, total, rows };
}

describe("the page cache", () => {
  it("fetches the visible pages and one either side, once", async () => {
    const asked: number[] = [];
    const cache = new PageCache(async (q, o, l) => {
      asked.push(o);
      return reply(q, o, l);
    }, () => undefined);
    await cache.ensure(0, 30);
    // The total is unknown before the first page: pages 0 and 1.
    expect(asked).toEqual([0, PAGE_ROWS]);
    await cache.ensure(1200, 1240);
    expect(asked).toEqual([0, 500, 1000, 1500]);
    await cache.ensure(1200, 1240);
    expect(asked.length).toBe(4);
    expect(cache.row(1234)?.key).toBe("k1234");
    expect(cache.total).toBe(TOTAL);
  });

  it("keeps at most its capacity, dropping the least recently used", async () => {
    const cache = new PageCache(async (q, o, l) => reply(q, o, l), () => undefined, 4);
    await cache.ensure(0, 10); // pages 0, 1
    await cache.ensure(2600, 2610); // pages 4, 5, 6
    expect(cache.size()).toBe(4);
    expect(cache.has(0)).toBe(false);
    expect(cache.has(1)).toBe(true);
    cache.row(600); // touch page 1
    await cache.ensure(5100, 5110); // pages 9, 10, 11
    expect(cache.has(1)).toBe(true);
    expect(cache.has(4)).toBe(false);
    expect(cache.size()).toBe(4);
  });

  it("never fetches past the last page once the total is known", async () => {
    const asked: number[] = [];
    const cache = new PageCache(async (q, o, l) => {
      asked.push(o);
      return reply(q, o, l, 700);
    }, () => undefined);
    await cache.ensure(0, 10);
    await cache.ensure(600, 699);
    expect(asked).toEqual([0, 500]);
  });

  it("drops a reply to a query the person has since changed", async () => {
    const release: (() => void)[] = [];
    const cache = new PageCache((q, o, l) => {
      const r = reply(q, o, l);
      if (q.sort.length === 0) return new Promise((res) => release.push(() => res(r)));
      return Promise.resolve(r);
    }, () => undefined);
    const old = cache.ensure(0, 10);
    const sorted: Query = { sort: [{ column: "i", descending: true }], filter: [] };
    cache.setQuery(sorted);
    await cache.ensure(0, 10);
    expect(cache.row(0)?.key).toBe("k0");
    expect(release.length).toBe(2);
    for (const r of release) r();
    await old;
    // Only the sorted query's pages are here; the late unsorted page was not stored.
    expect(cache.current()).toBe(sorted);
    expect(cache.size()).toBe(2);
  });

  it("drops a reply whose echoed query is not the current one", async () => {
    const cache = new PageCache(async (_q, o, l) => reply({ sort: [{ column: "x" }], filter: [] }, o, l), () => undefined);
    await cache.ensure(0, 10);
    expect(cache.size()).toBe(0);
    expect(cache.total).toBeNull();
  });

  it("keeps a refusal for the panel and clears it with a good page", async () => {
    let fail = true;
    const cache = new PageCache(async (q, o, l) => {
      if (fail) throw new Error("invalid");
      return reply(q, o, l);
    }, () => undefined);
    await cache.ensure(0, 1);
    expect(String(cache.error)).toContain("invalid");
    fail = false;
    cache.setQuery({ sort: [], filter: [{ column: "i", op: "gt", value: 3 }] });
    await cache.ensure(0, 1);
    expect(cache.error).toBeNull();
  });
});
