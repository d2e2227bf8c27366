import { z } from 'zod';
import type { PullRequest, CheckRun, RepoRef } from '../../../src/providers/scmhost/scmhost-types';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { AGENT_OUTPUT_BOUNDS, clip, droppedCount, issuesText, keepFirst } from '../agent-output-bounds';
import { createContainerStations, type ContainerStationDeps } from '../container-station';
import { boundStationResult } from '../station-result-bound';
import { stationFailure } from '../station-failure';
import { ciVerdict, pipelineCheckRuns, type CiFailure } from './ci-verdict';
import type { GitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import type { RegistryRepository } from '../../../src/config/repository-registry';
import { parsePullRequestRef, type PullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import { tasksOfRepository } from './implementation-task-text';
import type { SyncDescription } from './pull-request-description-sync';

/**
 * ci_evaluator and attempt_ci_fix (REFERENCE "Feature", "Source host conventions"): the evaluator reads the check
 * runs of every open pull request's head and decides pass, wait or fail; a failure is fixed by an agent in a
 * container on the ticket branch of that repository, pushed, and evaluated again, up to CI_MAX_FIX_ATTEMPTS.
 */

export interface CiScmhost {
  getPullRequest(ref: RepoRef, number: number): Promise<PullRequest>;
  listCheckRuns(ref: RepoRef, sha: string): Promise<CheckRun[]>;
}

/** A GitLab project of the repository registry and what CI evaluation reads of it. */
export type CiGitLab = (repository: string) => { entry: RegistryRepository; client: Pick<GitLabClient, 'getMergeRequest' | 'listMergeRequestPipelines'> } | undefined;

export interface CiStationDeps {
  /** GitHub; unset when only GitLab projects are configured. */
  scmhost?: () => Promise<CiScmhost>;
  /** GitLab projects of the repository registry (pipelines of the merge request's head). */
  gitlab?: CiGitLab;
  /** CI_IGNORED_CHECKS */
  ignoredChecks: string[];
  /** CI_MAX_FIX_ATTEMPTS */
  maxFixAttempts: number;
  container: ContainerStationDeps;
  /** Counts service_ci_fix_attempts_total, once per fix the agent pushed. */
  onFixAttempt?: () => void;
  /** Rewrites the pull request's description after a pushed fix (sync_pr_description). */
  syncDescription?: SyncDescription;
}

/** A pull request whose head failed, as ci_evaluator keeps it for attempt_ci_fix (`outputs.ci_evaluator.failing`). */
export interface FailingPullRequest {
  pull_request: string;
  repository: string;
  head_sha: string;
  failures: CiFailure[];
}

const CI_FIX_NOTES = '.service/ci_fix.md';
const CI_ANALYSIS_FILE = '.service/ci_analysis.json';

const analysisSchema = z.object({
  summary: z.string().default(''),
  causes: z.array(z.object({ check: z.string().default(''), cause: z.string(), file: z.string().optional(), fix: z.string().default('') })).default([]),
});
/** The analysis as the fix and the station's data get it: its first causes, and how many more the agent wrote. */
export type CiAnalysis = z.infer<typeof analysisSchema> & { causes_dropped?: number };

/**
 * The analysis the agent wrote, or what is wrong with it; the first AGENT_OUTPUT_BOUNDS.ciCauses causes, each text
 * bounded. Pure; exported for tests.
 */
export function parseCiAnalysis(text: string | undefined): CiAnalysis | { error: string } {
  if (text === undefined) return { error: `${CI_ANALYSIS_FILE} was not written` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: `${CI_ANALYSIS_FILE} is not JSON` };
  }
  const parsed = analysisSchema.safeParse(json);
  if (!parsed.success) return { error: `${CI_ANALYSIS_FILE}: ${issuesText(parsed.error.issues)}` };
  const max = AGENT_OUTPUT_BOUNDS.ciCauseChars;
  const causes = keepFirst(parsed.data.causes, AGENT_OUTPUT_BOUNDS.ciCauses);
  return {
    summary: clip(parsed.data.summary, max),
    causes: causes.kept.map((c) => ({ check: clip(c.check, 200), cause: clip(c.cause, max), ...(c.file === undefined ? {} : { file: clip(c.file, AGENT_OUTPUT_BOUNDS.pathChars) }), fix: clip(c.fix, max) })),
    ...droppedCount('causes', causes),
  };
}

function failedChecksText(failing: FailingPullRequest): string[] {
  return failing.failures.map((f, i) => [
    `### ${i + 1}. ${f.name}: ${f.conclusion}${f.url ? ` (${f.url})` : ''}`,
    ...(f.title ? [f.title] : []),
    ...(f.summary ? ['', f.summary] : []),
    ...(f.text ? ['', '```', f.text, '```'] : []),
  ].join('\n'));
}

/** What the analysis agent is told (read-only): the failed checks and where to write its diagnosis. */
export function ciAnalysisText(input: StationInput, failing: FailingPullRequest): string {
  return [
    `Ticket ${input.ticket_key}: the CI checks of the pull request ${failing.pull_request} failed on commit ${failing.head_sha.slice(0, 12)}. Find out why.`,
    'Do not change any file except the output file.',
    '',
    '## Failed checks',
    ...failedChecksText(failing),
    '',
    `Write \`${CI_ANALYSIS_FILE}\` as JSON: {"summary": "...", "causes": [{"check": "...", "cause": "...", "file": "...", "fix": "..."}]}.`,
  ].join('\n');
}

const refOf = (repository: string): RepoRef => {
  const [owner, repo] = repository.split('/');
  return { owner: owner!, repo: repo! };
};

/** What the agent is told: the failed checks first, then the tasks the pull request implements. */
export function ciFixText(input: StationInput, failing: FailingPullRequest, attempt: number, max: number, analysis?: CiAnalysis): string {
  const checks = failedChecksText(failing);
  const diagnosis = analysis && (analysis.summary || analysis.causes.length)
    ? ['', '## The analysis (do this)', ...(analysis.summary ? [analysis.summary] : []), ...analysis.causes.map((c) => `- ${c.check ? `${c.check}: ` : ''}${c.cause}${c.file ? ` (\`${c.file}\`)` : ''}${c.fix ? ` Fix: ${c.fix}` : ''}`)]
    : [];
  const tasks = tasksOfRepository(input, failing.repository);
  return [
    `Ticket ${input.ticket_key}: the CI checks of the pull request ${failing.pull_request} failed on commit ${failing.head_sha.slice(0, 12)}. Fix the cause (attempt ${attempt} of ${max}).`,
    '',
    '## Failed checks',
    ...checks,
    ...diagnosis,
    ...(tasks.length ? ['', '## What the pull request implements', ...tasks.map((t) => `- ${t.summary}`)] : []),
    '',
    `Write \`${CI_FIX_NOTES}\`: for each failed check, its cause and what you changed.`,
  ].join('\n');
}

function failingOf(input: StationInput): FailingPullRequest | undefined {
  const failing = (input.outputs.ci_evaluator as { failing?: FailingPullRequest[] } | undefined)?.failing;
  return Array.isArray(failing) ? failing[0] : undefined;
}

/** The head commit of an open pull request (GitHub) or merge request (GitLab) and the checks reported for it. */
async function headAndChecks(deps: CiStationDeps, parsed: PullRequestRef): Promise<{ sha: string; checks: CheckRun[] } | { closed: string }> {
  const gitlab = deps.gitlab?.(parsed.repository);
  if (gitlab) {
    const mr = await gitlab.client.getMergeRequest(gitlab.entry.namespace, parsed.number);
    if (mr.state !== 'opened') return { closed: mr.state };
    // The merge request's own pipeline list, not the project's: a merge request from a fork (fork mode) has its
    // pipelines in the fork, and GitLab lists them here (the project's pipelines of that commit would be none).
    const pipelines = await gitlab.client.listMergeRequestPipelines(gitlab.entry.namespace, parsed.number);
    return { sha: mr.sha, checks: pipelineCheckRuns(pipelines.filter((pipeline) => pipeline.sha === mr.sha)) };
  }
  if (parsed.host !== 'github' || !deps.scmhost) {
    throw stationFailure({ code: 'source_host_not_configured', message: `${parsed.repository} is neither a GitHub repository this worker can read (SCMHOST_TOKEN) nor an entry of the repository registry`, recovery: 'configure the source host of this repository, restart the worker, then add service:retry' });
  }
  const scmhost = await deps.scmhost();
  const pull = await scmhost.getPullRequest(refOf(parsed.repository), parsed.number);
  if (pull.state !== 'open') return { closed: pull.merged ? 'merged' : 'closed' };
  return { sha: pull.headSha, checks: await scmhost.listCheckRuns(refOf(pull.headRepoFullName ?? parsed.repository), pull.headSha) };
}

function createCiEvaluator(deps: CiStationDeps): StationActivity {
  return async (input) => {
    const refs = (input.pull_requests ?? []).map((ref) => ({ ref, parsed: parsePullRequestRef(ref) }));
    if (refs.length === 0) {
      throw stationFailure({ code: 'pull_request_missing', message: `${input.ticket_key} has no pull request whose CI could be evaluated`, recovery: 'open the pull request (or add service:retry at create_pr), then add service:retry' });
    }
    const skipped = input.ci?.skipped_checks ?? [];
    const failing: FailingPullRequest[] = [];
    const pending: string[] = [];
    const passed: string[] = [];
    const notes: string[] = [];
    for (const { ref, parsed } of refs) {
      if (!parsed) {
        notes.push(`${ref}: not evaluated (not a pull request reference)`);
        continue;
      }
      const head = await headAndChecks(deps, parsed);
      if ('closed' in head) {
        notes.push(`${ref}: ${head.closed}`);
        continue;
      }
      const verdict = ciVerdict(head.checks, { ignored: deps.ignoredChecks, skipped });
      if (verdict.verdict === 'fail') failing.push({ pull_request: ref, repository: parsed.repository, head_sha: head.sha, failures: verdict.failures });
      else if (verdict.verdict === 'wait') pending.push(`${ref}: ${verdict.reason}${verdict.pending.length ? ` (${verdict.pending.join(', ')})` : ''}`);
      else passed.push(`${ref}: ${verdict.passed.length} passed${verdict.skipped.length ? `, skipped ${verdict.skipped.join(', ')}` : ''}`);
    }
    const attempts = input.ci?.fix_attempts ?? 0;
    // Each pull request is judged on its own: one whose checks all finished with a failure is fixed now, whatever
    // the checks of the ticket's other pull requests are still doing.
    if (failing.length > 0) {
      const what = failing.map((f) => `${f.pull_request} (${f.failures.map((c) => `${c.name}: ${c.conclusion}`).join(', ')})`).join('; ');
      if (attempts >= deps.maxFixAttempts) {
        throw stationFailure({
          code: 'ci_fix_limit', message: `CI fix attempt limit reached (${attempts}/${deps.maxFixAttempts}): ${what}`.slice(0, 1000),
          recovery: 'fix the checks by hand on the ticket branch (or skip one with /service skip-gate <name>), then add service:retry',
        });
      }
      return { outcome: 'fail', data: { failing, passed, notes }, summary: `CI failed: ${what}`.slice(0, 500) };
    }
    if (pending.length > 0) {
      return { outcome: 'wait', data: { pending, passed, notes, failing: [] }, summary: `CI still running: ${pending.join('; ')}`.slice(0, 500) };
    }
    return { outcome: 'pass', data: { passed, notes, failing: [] }, summary: `CI passed: ${[...passed, ...notes].join('; ')}`.slice(0, 500) };
  };
}

function createCiFixAttempt(deps: CiStationDeps): StationActivity {
  const analyseInContainer = createContainerStations(deps.container)({
    skill: 'ci_analysis',
    step: 'ci_analysis',
    task: (input) => ciAnalysisText(input, failingOf(input)!),
    outputs: () => [CI_ANALYSIS_FILE],
    commitMessage: (input) => `[${input.ticket_key}] CI analysis notes`,
  });
  const fixInContainer = createContainerStations(deps.container)({
    skill: 'fix_ci',
    task: (input) => ciFixText(input, failingOf(input)!, (input.ci?.fix_attempts ?? 0) + 1, deps.maxFixAttempts, input.params?.analysis as CiAnalysis | undefined),
    outputs: () => [CI_FIX_NOTES],
    commitMessage: (input) => `[${input.ticket_key}] fix: address CI failures (attempt ${(input.ci?.fix_attempts ?? 0) + 1})`,
  });

  return async (input) => {
    const failing = failingOf(input);
    if (!failing) {
      throw stationFailure({ code: 'invalid_station_input', message: 'attempt_ci_fix runs after ci_evaluator found a failure, but outputs.ci_evaluator.failing is empty', recovery: 'add service:retry to evaluate CI again' });
    }
    const attempt = (input.ci?.fix_attempts ?? 0) + 1;
    // First a read-only diagnosis (policy key ci_analysis); whatever it changed is not pushed.
    const analysed = await analyseInContainer({ ...input, model_key: 'ci_analysis', params: { ...input.params, repository: failing.repository } });
    const analysis = parseCiAnalysis((analysed.data as { outputs: Record<string, string> }).outputs[CI_ANALYSIS_FILE]);
    if (analysed.outcome === 'agent_failed' || 'error' in analysis) {
      const why = 'error' in analysis ? analysis.error : (analysed.data as { agent: { message?: string } }).agent.message ?? 'no reason given';
      throw stationFailure({ code: analysed.outcome === 'agent_failed' ? 'agent_failed' : 'agent_output_invalid', message: `the CI analysis of ${failing.pull_request} failed: ${why}`, recovery: 'add service:retry to analyse again, or fix the checks by hand' });
    }
    const result = await fixInContainer({ ...input, params: { ...input.params, repository: failing.repository, analysis } });
    const data = result.data as { commit_sha: string | null; base_sha: string; resumed: boolean; agent: { message?: string } };
    if (result.outcome === 'agent_failed' || result.outcome === 'outputs_missing') {
      throw stationFailure({ code: result.outcome === 'agent_failed' ? 'agent_failed' : 'agent_output_missing', message: `the CI fix agent in ${failing.repository} ${result.outcome === 'agent_failed' ? `gave up: ${data.agent.message ?? 'no reason given'}` : `did not write ${CI_FIX_NOTES}`}`, recovery: 'fix the checks by hand on the ticket branch, then add service:retry' });
    }
    // A run after a crash finds its own earlier fix on the branch (the head moved past the failing commit).
    const alreadyPushed = !data.commit_sha && data.resumed && data.base_sha !== failing.head_sha;
    if (!data.commit_sha && !alreadyPushed) {
      throw stationFailure({ code: 'nothing_fixed', message: `the CI fix agent changed nothing in ${failing.repository} (${failing.failures.map((f) => f.name).join(', ')} failed)`, recovery: 'fix the checks by hand on the ticket branch (or skip one with /service skip-gate <name>), then add service:retry' });
    }
    if (data.commit_sha) deps.onFixAttempt?.();
    const number = parsePullRequestRef(failing.pull_request)?.number;
    const notes = (result.data as { outputs?: Record<string, string> }).outputs?.[CI_FIX_NOTES] ?? result.summary ?? '';
    const sync = data.commit_sha && number && deps.syncDescription
      ? await deps.syncDescription(input, { repository: failing.repository, number }, `A fix for the failed CI checks ${failing.failures.map((f) => f.name).join(', ')} (attempt ${attempt}):\n\n${notes}`)
      : undefined;
    const names = failing.failures.map((f) => `\`${f.name}\``).join(', ');
    const progress: EffectIntent = {
      name: 'ci_fix_progress',
      operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: `🔧 CI fix attempt ${attempt}/${deps.maxFixAttempts} on ${failing.pull_request}: ${names} failed; a fix was pushed${data.commit_sha ? ` (${data.commit_sha.slice(0, 7)})` : ''}. CI runs again.` },
    };
    const spent = [analysed.usage, result.usage, sync?.usage].filter((u): u is NonNullable<typeof u> => Boolean(u));
    return boundStationResult({
      ...result, outcome: 'fixed', effects: [...(result.effects ?? []), ...(sync ? [sync.effect] : []), progress],
      ...(spent.length ? { usage: { ...spent[0]!, input_tokens: spent.reduce((n, u) => n + u.input_tokens, 0), output_tokens: spent.reduce((n, u) => n + u.output_tokens, 0) } } : {}),
      data: { ...result.data, attempt, pull_request: failing.pull_request, analysis },
      summary: `CI fix attempt ${attempt}/${deps.maxFixAttempts} in ${failing.repository}: ${result.summary ?? ''}`.slice(0, 500),
    }).result;
  };
}

export function createCiStations(deps: CiStationDeps): Record<string, StationActivity> {
  return {
    ci_evaluator: createCiEvaluator(deps),
    attempt_ci_fix: createCiFixAttempt(deps),
  };
}
