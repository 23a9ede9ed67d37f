//! The two ways a call fails: a refusal from the service (the envelope's error) or a lost reply.

/** A refusal the service answered: `code` is the envelope's error code (`stale`, `conflict`, ...). */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, status: number, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** No answer arrived (network error, service restarting): the outcome is unknown, so a retry
 * must resend the same body with the same `changeId`. */
export class LostReply extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LostReply";
  }
}

/** Whether a failure is worth retrying unchanged: no answer, or the service is stopping (an
 * `unavailable` that names no missing owner). */
export function isRetryable(e: unknown): boolean {
  if (e instanceof LostReply) return true;
  if (!(e instanceof ApiError) || e.code !== "unavailable") return false;
  const missing = e.details["missing"];
  return !Array.isArray(missing) || missing.length === 0;
}
