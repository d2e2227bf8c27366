import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalResults } from './eval-results';
import type { MlflowClient, MlflowMetric, MlflowParam, MlflowRun } from './mlflow-client';
import type { RunSummary } from './run-skill-tests';

export interface LoggedRun {
  run: MlflowRun;
  url: string;
  artifacts: number;
  /** False when the run's artifact root is not on the server's artifact proxy: nothing was uploaded. */
  artifactsUploaded: boolean;
}

const GRADE_POINTS = { A: 4, B: 3, C: 2, D: 1 } as const;

function metric(key: string, value: number, timestamp: number): MlflowMetric {
  return { key, value, timestamp, step: 0 };
}

function contentType(path: string): string {
  if (path.endsWith('.json')) return 'application/json';
  if (path.endsWith('.html')) return 'text/html';
  if (path.endsWith('.md') || path.endsWith('.txt')) return 'text/plain';
  return 'application/octet-stream';
}

async function logRun(client: MlflowClient, input: {
  experiment: string; runName: string; tags: Record<string, string>; params: MlflowParam[]; metrics: MlflowMetric[];
  artifacts: Array<{ path: string; file: string }>; failed: boolean;
}): Promise<LoggedRun> {
  const experimentId = await client.ensureExperiment(input.experiment);
  const run = await client.createRun(experimentId, input.runName, Object.entries({ 'mlflow.runName': input.runName, ...input.tags }).map(([key, value]) => ({ key, value })));
  try {
    await client.logBatch(run.runId, { params: input.params, metrics: input.metrics });
    let uploaded = 0;
    let proxied = true;
    for (const artifact of input.artifacts) {
      if (!existsSync(artifact.file)) continue;
      if (!(await client.uploadArtifact(run, artifact.path, readFileSync(artifact.file), contentType(artifact.path)))) {
        proxied = false;
        break;
      }
      uploaded += 1;
    }
    await client.finishRun(run.runId, input.failed ? 'FAILED' : 'FINISHED');
    return { run, url: client.runUrl(run), artifacts: uploaded, artifactsUploaded: proxied };
  } catch (error) {
    await client.finishRun(run.runId, 'FAILED').catch(() => undefined);
    throw error;
  }
}

/**
 * `test-skill run --mlflow`: one MLflow run with the skill, model and inputs as parameters, token usage and latency
 * (in total and per input) as metrics, and every input's response.json, trace.json and generated files as artifacts
 * under `<input>/`. A run with an input that did not complete is marked FAILED.
 */
export async function logSkillRunToMlflow(client: MlflowClient, input: { experiment: string; summary: RunSummary; outputs: Array<{ id: string; outputDir: string }>; project?: string; source: string; summaryFile?: string }): Promise<LoggedRun> {
  const { summary } = input;
  const now = Date.now();
  const metrics = [
    metric('input_tokens', summary.usage.input_tokens, now), metric('output_tokens', summary.usage.output_tokens, now),
    metric('total_tokens', summary.usage.input_tokens + summary.usage.output_tokens, now), metric('latency_seconds', summary.latency_seconds, now),
    metric('inputs_completed', summary.completed, now), metric('inputs_failed', summary.failed, now),
    ...summary.inputs.flatMap((row) => [
      metric(`${row.id}.input_tokens`, row.input_tokens, now), metric(`${row.id}.output_tokens`, row.output_tokens, now),
      metric(`${row.id}.latency_seconds`, row.latency_seconds, now), metric(`${row.id}.completed`, row.status === 'completed' ? 1 : 0, now),
    ]),
  ];
  const artifacts = input.outputs.flatMap(({ id, outputDir }) => {
    const row = summary.inputs.find((r) => r.id === id);
    const prefix = input.outputs.length > 1 ? `${id}/` : '';
    return ['response.json', 'trace.json', ...(row?.generated_files ?? [])].map((path) => ({ path: `${prefix}${path}`, file: join(outputDir, path) }));
  });
  if (input.summaryFile) artifacts.push({ path: 'summary.json', file: input.summaryFile });
  return logRun(client, {
    experiment: input.experiment,
    runName: `run ${summary.skill} ${new Date(now).toISOString()}`,
    tags: { 'service.kind': 'test-skill run', 'service.skill': summary.skill },
    params: [
      { key: 'kind', value: 'run' }, { key: 'skill', value: summary.skill }, { key: 'model', value: summary.model },
      { key: 'source', value: input.source }, { key: 'inputs', value: String(summary.inputs.length) },
      ...(input.project ? [{ key: 'project', value: input.project }] : []),
    ],
    metrics, artifacts, failed: summary.failed > 0,
  });
}

/**
 * `test-skill eval --mlflow`: the criteria settings and judge as parameters; the mean score, grade (A=4 ... D=1),
 * passes, critical failures, judge tokens and latency as metrics, with each case's percentage, criterion scores and
 * (from its response.json) the skill run's tokens and latency; results.json and report.html as artifacts. The run is
 * FAILED when the evaluation failed.
 */
export async function logEvaluationToMlflow(client: MlflowClient, input: { experiment: string; results: EvalResults; resultsFile: string; reportFile: string }): Promise<LoggedRun> {
  const { results } = input;
  const s = results.summary;
  const now = Date.now();
  const metrics = [
    metric('mean_percentage', s.mean_percentage, now), metric('grade_points', GRADE_POINTS[s.grade], now),
    metric('cases_passed', s.passed, now), metric('cases_failed', s.failed, now), metric('passed_all', s.passed_all ? 1 : 0, now),
    metric('critical_failures', s.critical_failures, now), metric('judge_input_tokens', s.judge_usage.input_tokens, now),
    metric('judge_output_tokens', s.judge_usage.output_tokens, now), metric('judge_latency_seconds', s.judge_latency_seconds, now),
    ...results.cases.flatMap((c) => [
      metric(`${c.id}.percentage`, c.percentage, now), metric(`${c.id}.grade_points`, GRADE_POINTS[c.grade], now), metric(`${c.id}.passed`, c.passed ? 1 : 0, now),
      ...c.criteria.map((criterion) => metric(`${c.id}.${criterion.id}`, criterion.score, now)),
      ...(c.skill_run ? [
        metric(`${c.id}.skill_input_tokens`, c.skill_run.input_tokens, now), metric(`${c.id}.skill_output_tokens`, c.skill_run.output_tokens, now),
        metric(`${c.id}.skill_latency_seconds`, c.skill_run.latency_seconds, now),
      ] : []),
    ]),
  ];
  const skillRuns = results.cases.flatMap((c) => (c.skill_run ? [c.skill_run] : []));
  if (skillRuns.length) {
    metrics.push(
      metric('skill_input_tokens', skillRuns.reduce((sum, r) => sum + r.input_tokens, 0), now),
      metric('skill_output_tokens', skillRuns.reduce((sum, r) => sum + r.output_tokens, 0), now),
      metric('skill_latency_seconds', skillRuns.reduce((sum, r) => sum + r.latency_seconds, 0), now),
    );
  }
  return logRun(client, {
    experiment: input.experiment,
    runName: `eval ${results.skill} ${new Date(now).toISOString()}`,
    tags: { 'service.kind': 'test-skill eval', 'service.skill': results.skill, 'service.grade': s.grade, 'service.result': s.passed_all ? 'PASS' : 'FAIL' },
    params: [
      { key: 'kind', value: 'eval' }, { key: 'skill', value: results.skill }, { key: 'judge_model', value: results.judge_model },
      { key: 'mode', value: results.mode }, { key: 'criteria_file', value: results.criteria_file }, { key: 'cases', value: String(s.cases) },
      { key: 'pass_threshold', value: String(results.pass_threshold) }, { key: 'fail_on_critical', value: String(results.fail_on_critical) },
      { key: 'criteria', value: results.cases[0]?.criteria.map((c) => `${c.id}:${c.weight}`).join(',') ?? '' },
    ],
    metrics,
    artifacts: [{ path: 'results.json', file: input.resultsFile }, { path: 'report.html', file: input.reportFile }],
    failed: !s.passed_all,
  });
}

export function describeLoggedRun(logged: LoggedRun): string {
  return `MLflow run ${logged.run.runId}: ${logged.url} (${logged.artifactsUploaded ? `${logged.artifacts} artifacts` : `artifacts not uploaded: the run's artifact root ${logged.run.artifactUri || '(none)'} is not served by the tracking server (start it with --serve-artifacts)`})`;
}
