import { describe, expect, it } from 'vitest';
import { analysisRepository, createAnalyzeBugStation } from '../../../../activities/stations/bug/analyze-bug-station';
import type { ContainerStationSpec } from '../../../../activities/stations/container-station';
import { stationFailureDetails } from '../../../../activities/stations/station-failure';
import type { StationInput, StationResult } from '../../../../workflows/runtime/station-types';

const rca = {
  summary: 'The cache key ignores the locale.',
  code_location: { file: 'src/cache.ts', function: 'keyOf', line_range: '10-14' },
  mechanism: 'Two locales share one entry.', trigger_to_symptom: 'A German user sees English prices.',
  hypothesis_log: [], introduced_in: 'unknown', confidence: { level: 'medium', percentage: 60, rationale: 'read the code' },
  reproducibility: 'always', options: [{ title: 'Add the locale to the key', description: 'Change keyOf.', tradeoffs: 'bigger cache' }],
};

const input: StationInput = {
  ticket_key: 'BUG-7', project_key: 'BUG', issue_type: 'Bug', workflow_kind: 'bug', run_id: 'run', node: 'analyze_bug', station: 'analyze_bug',
  visit: 1, model_key: 'analyze_bug', artifacts: {}, outputs: {}, token_budget: null,
};

/** A fake container family: each run answers with the next scripted rca.json (or outcome), and records its spec. */
function fakeFamily(runs: Array<{ rca?: string; outcome?: string }>) {
  const seen: Array<{ spec: ContainerStationSpec; input: StationInput; task: string }> = [];
  const family = (spec: ContainerStationSpec) => async (run: StationInput): Promise<StationResult> => {
    const next = runs[seen.length]!;
    seen.push({ spec, input: run, task: spec.task(run) });
    return {
      outcome: next.outcome ?? 'no_changes',
      data: { repository: run.params?.repository, commit_sha: null, outputs: next.rca === undefined ? {} : { '.service/rca.json': next.rca }, agent: { status: next.outcome === 'agent_failed' ? 'failed' : 'done', message: 'stuck' } },
      usage: { input_tokens: 100, output_tokens: 10, model: 'sim:m' },
    };
  };
  return { family, seen };
}

function station(runs: Array<{ rca?: string; outcome?: string }>) {
  const fake = fakeFamily(runs);
  const stations = createAnalyzeBugStation({
    container: {} as never,
    family: fake.family,
    tracker: {
      getIssue: async () => ({ key: 'BUG-7', summary: 'Wrong prices', description: 'Prices are wrong.', labels: ['repo:acme/web'] }) as never,
      getComments: async () => [{ id: '1', body: 'Also on Firefox.', author: { displayName: 'Ann' }, created: '', updated: '' }, { id: '2', body: 'RCA posted', created: '', updated: '', idempotencyKey: 'k' }] as never,
    },
    repositories: async () => ({ status: 'configured', source: 'project_properties', repositories: ['acme/api', 'acme/web'], default_repo: null }),
  });
  return { run: () => stations.analyze_bug(input), seen: fake.seen };
}

describe('analyze_bug', () => {
  it('runs read-only in the labelled repository and keeps the validated RCA', async () => {
    const { run, seen } = station([{ rca: JSON.stringify(rca) }]);
    const result = await run();
    expect(result.outcome).toBe('analyzed');
    expect(result.data).toEqual({ rca: { ...rca }, repository: 'acme/web', other_repositories: ['acme/api'], attempts: 1 });
    expect(result.effects ?? []).toEqual([]);
    expect(result.usage).toMatchObject({ input_tokens: 100, output_tokens: 10 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.spec).toMatchObject({ skill: 'analyze_bug', readOnly: true });
    expect(seen[0]!.spec.outputs!(input)).toEqual(['.service/rca.json']);
    expect(seen[0]!.input.params?.repository).toBe('acme/web');
    expect(seen[0]!.task).toContain('Also on Firefox.');
    expect(seen[0]!.task).not.toContain('RCA posted');
  });

  it('runs once more with the validation errors, and sums the usage of both runs', async () => {
    const { run, seen } = station([{ rca: '{"summary": "only this"}' }, { rca: JSON.stringify(rca) }]);
    const result = await run();
    expect(result.data).toMatchObject({ attempts: 2 });
    expect(result.usage).toMatchObject({ input_tokens: 200, output_tokens: 20 });
    expect(seen[0]!.task).not.toContain('was refused');
    expect(seen[1]!.task).toContain('## Your .service/rca.json was refused');
    expect(seen[1]!.task).toContain('- code_location');
  });

  it('blocks with agent_output_invalid naming the errors when the second file does not fit either', async () => {
    const { run, seen } = station([{ outcome: 'outputs_missing' }, { rca: 'not json' }]);
    const error = await run().then(() => undefined, (e: unknown) => e);
    const details = stationFailureDetails(error);
    expect(details?.code).toBe('agent_output_invalid');
    expect(details?.message).toContain('.service/rca.json is not JSON');
    expect(details?.usage).toEqual({ input_tokens: 200, output_tokens: 20 });
    expect(seen[1]!.task).toContain('.service/rca.json was not written');
  });

  it('blocks with agent_failed when the agent gives up', async () => {
    const { run, seen } = station([{ outcome: 'agent_failed' }]);
    const details = stationFailureDetails(await run().then(() => undefined, (e: unknown) => e));
    expect(details).toMatchObject({ code: 'agent_failed', message: expect.stringContaining('stuck') });
    expect(seen).toHaveLength(1);
  });
});

describe('analysisRepository', () => {
  const configured = { status: 'configured' as const, source: 'project_properties' as const, repositories: ['acme/api', 'acme/web', 'acme/docs'], default_repo: null };

  it('runs in the first valid repo: label and names the others', () => {
    expect(analysisRepository('BUG', ['repo:acme/nope', 'repo:ACME/WEB', 'repo:acme/api'], configured)).toEqual({ ok: true, repository: 'acme/web', others: ['acme/api', 'acme/docs'] });
  });

  it('else in the default repository, else the first configured one', () => {
    expect(analysisRepository('BUG', ['bug'], { ...configured, default_repo: 'acme/docs' })).toMatchObject({ repository: 'acme/docs' });
    expect(analysisRepository('BUG', ['repo:acme/nope'], configured)).toMatchObject({ repository: 'acme/api', others: ['acme/web', 'acme/docs'] });
  });

  it('blocks with the setup comment when the project has no repository configuration', () => {
    const result = analysisRepository('BUG', [], { status: 'missing', missing: ['service.repos'], problems: [], require_project_config: true });
    expect(result).toMatchObject({ ok: false, problem: { code: 'missing_project_config' } });
    expect(analysisRepository('BUG', [], { ...configured, repositories: [] })).toMatchObject({ ok: false, problem: { code: 'missing_project_config' } });
  });
});

