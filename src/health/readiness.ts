/**
 * The readiness decision, in Kubernetes' terms: a process is ready for traffic (the gateway) or work (the worker)
 * only when every check it depends on passed. A check that could not run because another failed first (no
 * namespace to look at while Temporal is unreachable) is not a pass either: it is named with why it was not run.
 */

/** `skipped`: not run, because a check it depends on failed; `detail` says which. */
export type CheckStatus = 'pass' | 'fail' | 'skipped';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** What was found: a version, a namespace, or why the check failed. */
  detail: string;
}

export interface ReadinessBody {
  status: 'ready' | 'not_ready';
  /** Every check that did not pass, with why; empty when ready. */
  failed: Array<{ name: string; reason: string }>;
  checks: CheckResult[];
}

export interface ReadinessAnswer {
  statusCode: 200 | 503;
  body: ReadinessBody;
}

/** The check a stopping process answers with instead of running the others: it takes nothing new on. */
export const SHUTDOWN_CHECK = 'shutdown';

export function passed(name: string, detail: string): CheckResult {
  return { name, status: 'pass', detail };
}

export function failed(name: string, detail: string): CheckResult {
  return { name, status: 'fail', detail };
}

export function skipped(name: string, detail: string): CheckResult {
  return { name, status: 'skipped', detail };
}

/**
 * 200 when there were checks and all passed; otherwise 503 naming each one that did not. No checks at all is not
 * ready: a probe that checked nothing must not send traffic to a process it knows nothing about.
 */
export function readinessAnswer(checks: readonly CheckResult[]): ReadinessAnswer {
  const notPassed = checks.filter((check) => check.status !== 'pass');
  const failedChecks = notPassed.map((check) => ({ name: check.name, reason: check.status === 'skipped' ? `not checked: ${check.detail}` : check.detail }));
  if (checks.length === 0) failedChecks.push({ name: 'checks', reason: 'no readiness checks are configured in this process' });
  const ready = failedChecks.length === 0;
  return { statusCode: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', failed: failedChecks, checks: [...checks] } };
}
