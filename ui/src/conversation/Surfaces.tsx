//! `/mcp` and `/doctor` typed in the message box: the conversation's MCP servers (status, transport, era, errors, exported tools, tools needing a restart, prompts, resources, last ping) and the health rows (provider, MCP, R, Python).

import type { DoctorRow, McpReport } from "./ops";

export type Report = { kind: "mcp"; mcp: McpReport } | { kind: "doctor"; rows: DoctorRow[] };

const STATUS: Record<string, string> = {
  connected: "connected",
  configured: "configured, not started",
  disabled: "disabled",
  malformed: "malformed",
  failed: "failed",
  not_loaded: "not loaded (this Agent starts no MCP server)",
};

const CHECK: Record<string, string> = { provider: "Model provider", mcp: "MCP servers", r: "R", python: "Python" };

function McpView({ mcp }: { mcp: McpReport }) {
  if (mcp.servers.length === 0) return <p>No MCP server is configured.</p>;
  return (
    <>
      <p className="muted small">{mcp.live ? "As this conversation's session runs them." : "As configured; no session of Rho's own agent runs in this conversation."}</p>
      <ul className="cv-servers">
        {mcp.servers.map((s) => (
          <li key={s.id} data-testid="cv-server">
            <strong>{s.id}</strong> <span className="muted small">({s.source}, {s.transport ?? "unknown transport"})</span>: {STATUS[s.status] ?? s.status}
            {s.era && <span className="muted small"> era {s.era}</span>}
            {s.lastPing && <span className="muted small">, last ping {s.lastPing}</span>}
            {s.error && <div className="cv-error">{s.error}</div>}
            {s.tools.length > 0 && <div className="small">Tools: {s.tools.map((t) => t.exported ?? `${t.name} (hidden)`).join(", ")}</div>}
            {s.toolsNeedingRestart.length > 0 && <div className="small">Offered after a restart: {s.toolsNeedingRestart.join(", ")}</div>}
            {s.prompts.length > 0 && <div className="small">Prompts: {s.prompts.join(", ")}</div>}
            {s.resources.length > 0 && <div className="small">Resources: {s.resources.join(", ")}</div>}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Surfaces({ report, onClose }: { report: Report; onClose: () => void }) {
  const title = report.kind === "mcp" ? "MCP servers (/mcp)" : "Health (/doctor)";
  return (
    <section className="cv-surface" aria-label={title} data-testid="cv-surface">
      <h3>{title}</h3>
      {report.kind === "mcp" ? (
        <McpView mcp={report.mcp} />
      ) : (
        <dl className="cv-detail">
          {report.rows.map((r) => (
            <div key={r.check} style={{ display: "contents" }}>
              <dt>{CHECK[r.check] ?? r.check}</dt>
              <dd data-testid={`cv-doctor-${r.check}`}>
                {r.ok ? "ok" : "not ok"}: {r.detail}
              </dd>
            </div>
          ))}
        </dl>
      )}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </section>
  );
}
