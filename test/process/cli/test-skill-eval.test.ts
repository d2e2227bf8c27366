import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startMlflowFake, type MlflowFake } from '../../helpers/mlflow-fake';
import { startService } from '../../helpers/service-process';

/**
 * `service test-skill run` then `test-skill eval` with the model simulator as both the skill's model and the judge:
 * the judge's structured answers decide pass, fail and grade, and a critical failure fails the evaluation.
 */
async function service(args: string[], env: NodeJS.ProcessEnv) {
  const command = startService(['test-skill', ...args], env);
  const code = await command.exited;
  const stdout = command.stdout();
  return { code, stdout, stderr: command.output().replace(stdout, '') };
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
const judged = (score: 0 | 1 | 2, reasoning: string, quotes: string[] = []) => ({ content: JSON.stringify({ score, reasoning, quotes }), usage: { prompt_tokens: 100, completion_tokens: 10 } });

describe('service test-skill eval (real binary, model simulator as skill model and judge)', { timeout: 90_000 }, () => {
  let model: ModelSimulator;
  let mlflow: MlflowFake;
  let env: NodeJS.ProcessEnv;
  let base: string;

  beforeAll(async () => {
    model = await startModelSimulator();
    mlflow = await startMlflowFake();
    env = {
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['skill-model', 'judge-model'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'skill-model' }),
    };
  });
  afterAll(async () => {
    await model?.close();
    await mlflow?.close();
  });
  beforeEach(() => {
    model.reset();
    base = mkdtempSync(join(tmpdir(), 'test-skill-eval-'));
    write(join(base, 'skill', 'SKILL.md'), '---\nname: write_prd\ndescription: Writes a PRD.\n---\nYou write PRDs into prd.md.\n');
    write(join(base, 'dataset', 'case-a', 'input.yaml'), 'ticket_key: PROJ-1\ntitle: Export reports as CSV\nprompt: Write the PRD.\n');
    write(join(base, 'dataset', 'case-a', 'gold.md'), '# CSV export\n\nScope: all reports, including archived ones.\n');
    write(join(base, 'dataset', 'case-b', 'input.yaml'), 'ticket_key: PROJ-2\ntitle: Dark mode\nprompt: Write the PRD.\n');
    write(join(base, 'dataset', 'case-b', 'gold.md'), '# Dark mode\n\nScope: the web app only.\n');
    write(join(base, 'criteria.yaml'), [
      'skill: write_prd', 'judge_model: sim:judge-model', 'gold_standard_file: gold.md', 'generated_file_patterns: ["*.md"]',
      'criteria:',
      '  - {id: scope, name: Scope, weight: critical, prompt: "Does the PRD state the scope the gold standard states?"}',
      '  - {id: clarity, name: Clarity, weight: important, prompt: "Is it plain and testable?"}',
      'pass_threshold: 0.5',
    ].join('\n'));
  });

  it('batch: runs a two-input dataset, judges both, and a critical failure in one fails the evaluation', async () => {
    model.script(
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'prd.md', content: '# CSV export\n\nAll reports, archived ones too, export as CSV.\n' }) } },
      { content: 'Wrote prd.md.' },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'prd.md', content: '# Dark mode\n\nEverything gets dark.\n' }) } },
      { content: 'Wrote prd.md.' },
    );
    const results = join(base, 'results');
    const ran = await service(['run', '--skill', 'write_prd', '--skill-dir', join(base, 'skill'), '--dataset', join(base, 'dataset'), '--output', results, '--mlflow', mlflow.url, '--mlflow-experiment', 'prd skill'], env);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/MLflow run run1: http:\/\/127\.0\.0\.1:\d+\/#\/experiments\/100\/runs\/run1 \(7 artifacts\)/);
    const runLogged = mlflow.runs.get('run1')!;
    expect(runLogged).toMatchObject({ experiment_id: '100', status: 'FINISHED', params: { kind: 'run', skill: 'write_prd', model: 'sim:skill-model', inputs: '2' } });
    expect(runLogged.metrics['case-a.completed']).toBe(1);
    expect(runLogged.metrics.total_tokens).toBeGreaterThan(0);
    expect(runLogged.metrics.latency_seconds).toBeGreaterThan(0);
    expect(Object.keys(runLogged.artifacts).sort()).toEqual(['case-a/prd.md', 'case-a/response.json', 'case-a/trace.json', 'case-b/prd.md', 'case-b/response.json', 'case-b/trace.json', 'summary.json']);
    expect(runLogged.artifacts['case-a/prd.md']).toContain('archived ones too');
    expect(model.pending()).toBe(0);

    model.reset();
    model.script(
      judged(2, 'States all reports including archived.', ['All reports, archived ones too, export as CSV.']),
      judged(2, 'Short and testable.'),
      judged(0, 'The gold standard limits the scope to the web app; the PRD says everything.', ['Everything gets dark.']),
      judged(2, 'Plain.'),
    );
    const out = join(base, 'eval');
    const evaluated = await service(['eval', '--criteria', join(base, 'criteria.yaml'), '--dataset', join(base, 'dataset'), '--results-dir', results, '--output', out, '--mlflow', mlflow.url, '--mlflow-experiment', 'prd skill'], env);
    expect(evaluated.stdout).toContain('test-skill eval: FAIL 1/2 passed, grade C (66.7 %) for write_prd, judged by sim:judge-model; failed: case-b (critical: scope)');
    expect(evaluated.stderr).toContain('[####################] 2/2 done');
    expect(evaluated.code).toBe(1);

    const report = json(join(out, 'results.json'));
    expect(report.summary).toMatchObject({ cases: 2, passed: 1, failed: 1, mean_percentage: 66.7, grade: 'C', passed_all: false, critical_failures: 1, judge_usage: { input_tokens: 400, output_tokens: 40 } });
    const [a, b] = report.cases;
    expect(a).toMatchObject({ id: 'case-a', status: 'judged', percentage: 100, grade: 'A', passed: true, generated_files: ['prd.md'], skill_run: { model: 'sim:skill-model', status: 'completed' } });
    expect(a.criteria[0]).toEqual({ id: 'scope', name: 'Scope', weight: 'critical', score: 2, reasoning: 'States all reports including archived.', quotes: ['All reports, archived ones too, export as CSV.'] });
    expect(b).toMatchObject({ id: 'case-b', percentage: 33.3, grade: 'D', passed: false, critical_failures: ['scope'] });
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg');

    // The evaluation is a second run of the same experiment: FAILED, with scores, grade, tokens and the artifacts.
    expect(mlflow.experiments.size).toBe(1);
    const evalLogged = mlflow.runs.get('run2')!;
    expect(evalLogged).toMatchObject({ experiment_id: '100', status: 'FAILED', params: { kind: 'eval', judge_model: 'sim:judge-model', mode: 'batch', criteria: 'scope:critical,clarity:important' }, tags: { 'service.grade': 'C', 'service.result': 'FAIL' } });
    expect(evalLogged.metrics).toMatchObject({ mean_percentage: 66.7, grade_points: 2, cases_passed: 1, critical_failures: 1, passed_all: 0, judge_input_tokens: 400, judge_output_tokens: 40, 'case-a.scope': 2, 'case-b.scope': 0, 'case-b.clarity': 2, 'case-b.percentage': 33.3 });
    expect(evalLogged.metrics['case-a.skill_input_tokens']).toBeGreaterThan(0);
    expect(Object.keys(evalLogged.artifacts).sort()).toEqual(['report.html', 'results.json']);
    expect(evalLogged.artifacts['report.html']).toBe(html);
    expect(html).toContain('The gold standard limits the scope to the web app; the PRD says everything.');

    // The judge got its skill, the criterion, the gold standard and the generated file, and answered with a schema.
    const first = model.requests[0]!;
    expect(first.model).toBe('judge-model');
    expect(String(first.messages![0]!.content)).toContain('You are a strict, fair reviewer');
    const prompt = String(first.messages![1]!.content);
    expect(prompt).toContain('## Criterion: Scope (scope, critical)');
    expect(prompt).toContain('Scope: all reports, including archived ones.');
    expect(prompt).toContain('## Generated document (prd.md)');
    expect((first.response_format as { type: string }).type).toBe('json_schema');
  });

  it('single mode: one generated file against one gold file passes with grade A', async () => {
    write(join(base, 'gen', 'prd.md'), '# CSV export\n\nAll reports export as CSV.\n');
    model.script(judged(2, 'Scope matches.'), judged(2, 'Clear.'));
    const out = join(base, 'single');
    const result = await service(['eval', '--criteria', join(base, 'criteria.yaml'), '--generated', join(base, 'gen', 'prd.md'), '--gold', join(base, 'dataset', 'case-a', 'gold.md'), '--output', out], env);
    expect(result.stdout).toContain('test-skill eval: PASS 1/1 passed, grade A (100.0 %)');
    expect(result.code).toBe(0);
    expect(json(join(out, 'results.json'))).toMatchObject({ mode: 'single', cases: [{ id: 'prd.md', passed: true }] });
  });

  it('single mode: a critical criterion scored 0 fails the run even when the other passes', async () => {
    write(join(base, 'gen', 'prd.md'), '# Dark mode\n');
    model.script(judged(0, 'No scope at all.'), judged(2, 'Clear.'));
    const result = await service(['eval', '--criteria', join(base, 'criteria.yaml'), '--generated', join(base, 'gen', 'prd.md'), '--gold', join(base, 'dataset', 'case-b', 'gold.md'), '--output', join(base, 'single')], env);
    expect(result.stdout).toContain('test-skill eval: FAIL 0/1 passed, grade D (33.3 %)');
    expect(result.stdout).toContain('failed: prd.md (critical: scope)');
    expect(result.code).toBe(1);
  });

  it('a case without results is an error that fails, and the judge is not asked about it', async () => {
    write(join(base, 'results', 'case-a', 'prd.md'), '# CSV\n');
    model.script(judged(2, 'ok'), judged(2, 'ok'));
    const out = join(base, 'eval');
    const result = await service(['eval', '--criteria', join(base, 'criteria.yaml'), '--dataset', join(base, 'dataset'), '--results-dir', join(base, 'results'), '--output', out], env);
    expect(result.code).toBe(1);
    expect(model.requests).toHaveLength(2);
    expect(json(join(out, 'results.json')).cases[1]).toMatchObject({ id: 'case-b', status: 'error', passed: false, error: expect.stringContaining('no generated file matches *.md') });
  });

  it('names the criteria file and field when the criteria are invalid', async () => {
    write(join(base, 'bad.yaml'), 'skill: x\njudge_model: sim:judge-model\ngold_standard_file: gold.md\ngenerated_file_patterns: []\ncriteria: []\n');
    const result = await service(['eval', '--criteria', join(base, 'bad.yaml'), '--generated', join(base, 'dataset', 'case-a', 'gold.md'), '--gold', join(base, 'dataset', 'case-a', 'gold.md'), '--output', join(base, 'o')], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(base, 'bad.yaml')}: generated_file_patterns: needs at least one pattern`);
    expect(result.stderr).toContain(`${join(base, 'bad.yaml')}: criteria: needs at least one criterion`);
  });
});
