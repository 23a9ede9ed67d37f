//! "Run this script": the Editor's buffer, flushed, submitted as one managed `r.execute` run of that exact version.

import { useState } from "react";
import { call } from "../api/client";
import type { Binding } from "../sync/binding";
import { showRun } from "./bus";

export function RunScript({ projectId, documentId, binding, path }: { projectId: string; documentId: string; binding: Binding | null; path: string }) {
  const [note, setNote] = useState<string | null>(null);
  if (!/\.r$/i.test(path)) return null;
  const go = async () => {
    if (!binding) return;
    setNote("Starting the run…");
    try {
      await binding.flush();
      const operationId = `run-${crypto.randomUUID()}`;
      await call("action.submit", {
        projectId,
        operationId,
        action: "r.execute",
        actionVersion: "0.2.0",
        input: { script: { kind: "buffer", documentId, version: binding.version } },
      });
      setNote(null);
      showRun(operationId);
    } catch (e) {
      setNote(`Not started: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void go()} disabled={!binding} title="Runs this editor version with Rscript as a managed run">
        Run this script
      </button>
      {note && <span role="status">{note}</span>}
    </>
  );
}
