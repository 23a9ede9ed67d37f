//! The app's wire types against the published contract: every operation it calls exists, takes the fields it sends, and admits the browser.

import { describe, expect, it } from "vitest";
import { REQUIRED, type OpName } from "../src/api/types";
import { NOT_FOR_PAIRED } from "../src/work/ops";

const files = import.meta.glob<Published>("../../protocol/operations/*.json", { eager: true, import: "default" });

interface Published {
  name: string;
  callers: string[];
  request: { required?: string[]; properties?: Record<string, unknown> };
  response: { required?: string[] };
}

function published(op: string): Published {
  const key = Object.keys(files).find((f) => f.split("/").pop()?.startsWith(`${op}.`));
  const p = key ? files[key] : undefined;
  if (!p) throw new Error(`${op} is not a published operation`);
  return p;
}

/** Fields the app reads from each reply: the contract must promise them. */
const READS: Partial<Record<OpName, string[]>> = {
  "project.list": ["projects"],
  "project.create": ["id", "name", "path"],
  "project.open": ["id", "name", "path"],
  "project.entries": ["entries"],
  "document.open": ["id", "path", "version", "length", "dirty"],
  "document.read": ["version", "text", "length", "dirty", "authors"],
  "document.edit": ["version", "length"],
  "document.undo": ["version", "length"],
  "document.save": ["version", "diskDigest"],
  "document.changes": ["changes", "complete"],
  "document.history": ["versions", "more"],
  "document.revision": ["version", "text", "length", "path"],
};

describe("the wire types", () => {
  for (const op of Object.keys(REQUIRED) as OpName[]) {
    it(`${op} matches protocol/operations`, () => {
      const p = published(op);
      expect(p.name).toBe(op);
      expect([...(p.request.required ?? [])].sort()).toEqual([...REQUIRED[op]].sort());
      expect(p.callers).toContain("local");
      // Paired tabs get no session.* / binding.*: the app says so instead of calling them.
      if (NOT_FOR_PAIRED.includes(op)) expect(p.callers).not.toContain("paired");
      else expect(p.callers).toContain("paired");
      for (const field of READS[op] ?? []) expect(p.response.required ?? []).toContain(field);
    });
  }
});
