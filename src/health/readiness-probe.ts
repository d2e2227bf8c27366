import { failed, readinessAnswer, skipped, SHUTDOWN_CHECK, type CheckResult, type ReadinessAnswer } from './readiness';

/** One check, or a chain of checks that depend on each other (Temporal, then its namespace, then its attributes). */
export interface ReadinessCheck {
  /** The name a failure is reported under when the check throws or does not answer in time. */
  name: string;
  /** The checks of a chain after the first: named as not checked when the chain throws or does not answer. */
  dependents?: string[];
  run(): Promise<CheckResult | CheckResult[]>;
}

export interface ReadinessProbeOptions {
  checks: ReadinessCheck[];
  /** Why the process takes nothing new on (it is stopping), or undefined while it runs. */
  stopping(): string | undefined;
  /** A check that has not answered by then counts as failed; the kubelet gives up on a probe that takes longer. */
  timeoutMs?: number;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

async function bounded(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult[]> {
  const failure = (detail: string) => [failed(check.name, detail), ...(check.dependents ?? []).map((name) => skipped(name, `${check.name} did not answer`))];
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult[]>((resolve) => {
    timer = setTimeout(() => resolve(failure(`did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([check.run().then((result) => [result].flat(), (error: unknown) => failure((error as Error).message)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The readiness endpoint's answer: every check at once, each bounded in time. A stopping process answers 503 at once
 * without checking anything, so that no new traffic or work is sent to it while it drains.
 */
export function createReadinessProbe(options: ReadinessProbeOptions): () => Promise<ReadinessAnswer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const stoppingAnswer = () => {
    const reason = options.stopping();
    return reason === undefined ? undefined : readinessAnswer([failed(SHUTDOWN_CHECK, reason)]);
  };
  return async () => {
    const before = stoppingAnswer();
    if (before) return before;
    const results = await Promise.all(options.checks.map((check) => bounded(check, timeoutMs)));
    // A stop that began while the checks ran wins: their passes no longer say anything about this process.
    return stoppingAnswer() ?? readinessAnswer(results.flat());
  };
}
