//! The table's sort keys: a click (or Enter) sorts by one column; Shift adds a column as the next key, as in spreadsheets.

import type { SortSpec } from "../api/types";

/**
 * The sort after a header activation on `column`. Without `add` the column becomes the only key,
 * cycling none, ascending, descending. With `add` (Shift) it cycles in place among the other keys:
 * a new column is appended ascending, an ascending key turns descending, a descending key is removed.
 */
export function nextSort(sort: SortSpec[], column: string, add: boolean): SortSpec[] {
  const now = sort.find((s) => s.column === column);
  if (!add) {
    if (!now || sort.length > 1) return [{ column, descending: false }];
    return now.descending ? [] : [{ column, descending: true }];
  }
  if (!now) return [...sort, { column, descending: false }];
  if (!now.descending) return sort.map((s) => (s.column === column ? { column, descending: true } : s));
  return sort.filter((s) => s.column !== column);
}

/** The 1-based rank of `column` among the sort keys, or 0 when it is not one. */
export function sortRank(sort: SortSpec[], column: string): number {
  return sort.findIndex((s) => s.column === column) + 1;
}
