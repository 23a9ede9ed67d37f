//! "Connect your agent": `session.instructions` (the MCP entry and the grant command to copy, never a credential) and `session.connect`.

import { useEffect, useState } from "react";
import { call } from "../api/client";
import type { ConnectReply, Instructions } from "./ops";

function Copy({ text, what }: { text: string; what: string }) {
  const [done, setDone] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setDone(`Copied the ${what}.`),
            () => setDone(`Could not copy; select the ${what} and copy it by hand.`),
          )
        }
      >
        Copy the {what}
      </button>
      <span role="status" className="muted">
        {done}
      </span>
    </>
  );
}

export function Connect({ projectId, onConnected }: { projectId: string; onConnected: () => void }) {
  const [session, setSession] = useState("claude-code");
  const [info, setInfo] = useState<Instructions | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [connected, setConnected] = useState<ConnectReply | null>(null);
  const [busy, setBusy] = useState(false);
  // Bumped by a connect, so the instructions say the grant the connect made.
  const [granted, setGranted] = useState(0);

  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      call("session.instructions", { projectId, session }).then(
        (r) => live && (setInfo(r), setError(null)),
        (e: unknown) => live && (setInfo(null), setError(e instanceof Error ? e.message : String(e))),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [projectId, session, granted]);

  const connect = async (agent: string) => {
    setBusy(true);
    try {
      const r = await call("session.connect", { projectId, agent });
      setConnected(r);
      setGranted((g) => g + 1);
      onConnected();
    } catch (e) {
      setError(`Connecting ${agent} was refused: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const entry = info ? JSON.stringify({ mcpServers: { [info.mcp.name]: { command: info.mcp.command, args: info.mcp.args } } }, null, 2) : "";
  return (
    <section aria-labelledby="connect-title">
      <h2 id="connect-title">Connect your agent</h2>
      <div className="row">
        <button type="button" disabled={busy} onClick={() => void connect("claude-code")}>
          Connect Claude Code
        </button>
        <button type="button" disabled={busy} onClick={() => void connect("codex")}>
          Connect Codex
        </button>
      </div>
      {connected && (
        <p role="status" data-testid="connected">
          {connected.connected ? `Connected ${connected.session}: its client registered Rho.` : `Granted ${connected.session}, but its client did not register Rho (exit ${connected.client.exitCode ?? "none"}).`}
        </p>
      )}
      <label htmlFor="connect-session">Any other Agent: its session name</label>
      <input id="connect-session" value={session} onChange={(e) => setSession(e.target.value)} />
      {error && <p role="alert">{error}</p>}
      {info && (
        <>
          <p>
            Grant it with this command on this computer (it writes the connection file the entry names; this page never shows a credential), then add the entry to
            the Agent's MCP configuration. {info.granted ? `${info.session} holds a grant now.` : `${info.session} has no grant yet.`}
          </p>
          <pre className="copyable" data-testid="grant-command">
            {info.grantCommand}
          </pre>
          <Copy text={info.grantCommand} what="grant command" />
          <pre className="copyable" data-testid="mcp-entry">
            {entry}
          </pre>
          <Copy text={entry} what="MCP entry" />
        </>
      )}
    </section>
  );
}
