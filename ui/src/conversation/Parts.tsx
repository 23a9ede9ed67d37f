//! A message's parts as the Agent produced them: its text, its thinking (folded), and tool steps with their title, kind, input and expandable detail (for Rho's own agent: the server or operation, the duration, the raw input and output, and an image result shown on the card).

import { CardImage, imageDescriptor } from "./CardImage";
import type { Call, Part, Step } from "./ops";
import { categoryLabel, duration, pretty, stepStatus } from "./words";

/** Where a call of Rho's own agent went: its MCP server, or the project operation. */
function source(call: Call): string {
  if (call.server) return `MCP server ${call.server}`;
  if (call.operation) return `Rho ${call.operation}`;
  return call.name;
}

/** The card details of a call of Rho's own agent: the raw input and output one click away. */
function CallDetail({ call }: { call: Call }) {
  return (
    <>
      <dt>Tool</dt>
      <dd>
        <code>{call.name}</code> ({source(call)})
      </dd>
      <dt>Raw input</dt>
      <dd>
        <pre className="cv-lines" data-testid="cv-call-input">
          {pretty(call.rawInput)}
        </pre>
      </dd>
      <dt>{call.isError ? "Error" : "Raw output"}</dt>
      <dd>
        <pre className="cv-lines" data-testid="cv-call-output">
          {call.rawOutput || "(nothing)"}
        </pre>
      </dd>
    </>
  );
}

/** Where the parts are: the conversation a call card reads its image from. */
export interface PartsAt {
  projectId: string;
  conversationId: string;
}

function StepView({ step, at }: { step: Step; at?: PartsAt }) {
  const call = step.call;
  const descriptor = call && !call.isError ? imageDescriptor(call.rawOutput) : null;
  const image = descriptor && at ? <CardImage projectId={at.projectId} conversationId={at.conversationId} stepId={step.stepId} descriptor={descriptor} /> : null;
  const hasDetail = step.exitCode !== null || step.lastLines !== null || step.purpose !== null || call !== undefined;
  const head = (
    <>
      <span className="cv-cat">{call ? source(call) : categoryLabel(step.category)}</span> <span className="cv-step-title">{step.title}</span>
      {step.input && step.input !== step.title && (
        <>
          {" "}
          <code className="cv-input">{step.input}</code>
        </>
      )}{" "}
      <span className={`cv-status cv-${step.status}`} data-testid="cv-step-status">
        {call?.cancelled ? "stopped" : stepStatus(step)}
      </span>
      {call && (
        <span className="muted small" data-testid="cv-call-duration">
          {" "}
          {duration(call.durationMs)}
        </span>
      )}
    </>
  );
  if (!hasDetail) {
    return (
      <div className="cv-step" data-testid="cv-step">
        {head}
      </div>
    );
  }
  return (
    <>
    <details className="cv-step" data-testid="cv-step">
      <summary>{head}</summary>
      <dl className="cv-detail">
        {step.purpose && (
          <>
            <dt>Purpose</dt>
            <dd>{step.purpose}</dd>
          </>
        )}
        {step.exitCode !== null && (
          <>
            <dt>Exit code</dt>
            <dd data-testid="cv-exit">{step.exitCode}</dd>
          </>
        )}
        {step.lastLines !== null && (
          <>
            <dt>Last lines printed</dt>
            <dd>
              <pre className="cv-lines">{step.lastLines || "(nothing)"}</pre>
            </dd>
          </>
        )}
        {call && <CallDetail call={call} />}
      </dl>
    </details>
    {image}
    </>
  );
}

export function Parts({ parts, at }: { parts: Part[]; at?: PartsAt }) {
  return (
    <>
      {parts.map((p, i) => {
        if (p.kind === "text") {
          return (
            <div key={i} className="cv-text">
              {p.text}
            </div>
          );
        }
        if (p.kind === "thought") {
          return (
            <details key={i} className="cv-thought">
              <summary>Thinking</summary>
              <div className="cv-text">{p.text}</div>
            </details>
          );
        }
        return <StepView key={p.step.stepId || i} step={p.step} at={at} />;
      })}
    </>
  );
}
