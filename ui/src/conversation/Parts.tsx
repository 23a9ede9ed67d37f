//! A message's parts as the Agent produced them: its text, its thinking (folded), and tool steps with their title, kind, input and expandable detail.

import type { Part, Step } from "./ops";
import { categoryLabel, stepStatus } from "./words";

function StepView({ step }: { step: Step }) {
  const hasDetail = step.exitCode !== null || step.lastLines !== null || step.purpose !== null;
  const head = (
    <>
      <span className="cv-cat">{categoryLabel(step.category)}</span> <span className="cv-step-title">{step.title}</span>
      {step.input && step.input !== step.title && (
        <>
          {" "}
          <code className="cv-input">{step.input}</code>
        </>
      )}{" "}
      <span className={`cv-status cv-${step.status}`} data-testid="cv-step-status">
        {stepStatus(step)}
      </span>
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
      </dl>
    </details>
  );
}

export function Parts({ parts }: { parts: Part[] }) {
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
        return <StepView key={p.step.stepId || i} step={p.step} />;
      })}
    </>
  );
}
