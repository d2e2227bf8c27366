import type { CheckRun } from '../../../src/providers/scmhost/scmhost-types';

/** One failed check, as the fix agent and the ticket comment are told about it. */
export interface CiFailure {
  name: string;
  conclusion: string;
  title?: string;
  summary?: string;
  /** The check's own output text, cut: a log can be megabytes. */
  text?: string;
  url?: string;
}

export type CiVerdict =
  | { verdict: 'pass'; passed: string[]; skipped: string[] }
  | { verdict: 'wait'; pending: string[]; reason: string }
  | { verdict: 'fail'; failures: CiFailure[] };

const PASSING = new Set(['success', 'skipped', 'neutral']);
const OUTPUT_LIMIT = 4000;

const matchesAny = (name: string, substrings: readonly string[]) => {
  const lower = name.toLowerCase();
  return substrings.some((s) => s.trim() && lower.includes(s.trim().toLowerCase()));
};

/**
 * REFERENCE "Source host conventions", CI evaluation, for the check runs of one head commit. Checks whose name
 * contains an ignored substring (CI_IGNORED_CHECKS) do not count at all; checks skipped with `/service skip-gate`
 * count as passing whatever they say. No counted check yet, or one still running, is a wait: the checks of a new
 * commit appear some time after the push. A check that ran again keeps only its latest run.
 */
export function ciVerdict(runs: readonly CheckRun[], options: { ignored: readonly string[]; skipped: readonly string[] }): CiVerdict {
  const latest = new Map<string, CheckRun>();
  for (const run of runs) {
    if (matchesAny(run.name, options.ignored)) continue;
    const seen = latest.get(run.name);
    if (!seen || run.id > seen.id) latest.set(run.name, run);
  }
  const counted = [...latest.values()].sort((a, b) => a.name.localeCompare(b.name));
  const skipped = counted.filter((run) => matchesAny(run.name, options.skipped));
  const judged = counted.filter((run) => !matchesAny(run.name, options.skipped));
  if (counted.length === 0) return { verdict: 'wait', pending: [], reason: 'no checks reported yet' };
  const pending = judged.filter((run) => run.status !== 'completed');
  // A fix is only attempted on the whole picture: one push per round, not one per check that happens to finish first.
  if (pending.length > 0) return { verdict: 'wait', pending: pending.map((run) => run.name), reason: `${pending.length} check(s) still running` };
  const failed = judged.filter((run) => !PASSING.has(run.conclusion ?? ''));
  if (failed.length > 0) {
    return {
      verdict: 'fail',
      failures: failed.map((run) => ({
        name: run.name, conclusion: run.conclusion ?? 'unknown',
        ...(run.output.title ? { title: run.output.title } : {}),
        ...(run.output.summary ? { summary: run.output.summary.slice(0, OUTPUT_LIMIT) } : {}),
        ...(run.output.text ? { text: run.output.text.slice(0, OUTPUT_LIMIT) } : {}),
        ...(run.detailsUrl ?? run.htmlUrl ? { url: run.detailsUrl ?? run.htmlUrl } : {}),
      })),
    };
  }
  return { verdict: 'pass', passed: judged.map((run) => run.name), skipped: skipped.map((run) => run.name) };
}

/** GitLab's final pipeline states in GitHub's conclusion words (as the workflow reads pipeline webhooks). */
const PIPELINE_CONCLUSIONS: Readonly<Record<string, string>> = { success: 'success', failed: 'failure', canceled: 'cancelled', skipped: 'skipped' };

/**
 * The pipelines of a GitLab commit as check runs named `pipeline` (the name `/service skip-gate pipeline` and the
 * pipeline webhooks use), so one verdict serves both hosts: the newest pipeline counts, a pipeline that has not
 * finished (including one waiting for a manual job) is still running. Pure; exported for tests.
 */
export function pipelineCheckRuns(pipelines: ReadonlyArray<{ id: number; sha: string; status: string; webUrl: string }>): CheckRun[] {
  return pipelines.map((pipeline) => {
    const conclusion = PIPELINE_CONCLUSIONS[pipeline.status];
    return {
      id: pipeline.id, name: 'pipeline', headSha: pipeline.sha, detailsUrl: pipeline.webUrl,
      status: conclusion ? 'completed' : 'in_progress', conclusion: conclusion ?? null,
      output: { title: `Pipeline #${pipeline.id}`, summary: `GitLab pipeline #${pipeline.id}: ${pipeline.status} (${pipeline.webUrl})` },
    };
  });
}
