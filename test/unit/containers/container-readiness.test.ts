import { describe, expect, it } from 'vitest';
import { parseModelConfiguration, type ModelConfiguration } from '../../../src/config/model-configuration';
import { CONTAINER_KEYS, CONTAINER_STATION_KEYS, MODEL_POLICY_KEYS, stationPlace } from '../../../src/config/model-policy-keys';
import { describeStagePlace, resolveStages, stagePlace, unreadyContainerStages } from '../../../src/containers/container-readiness';
import { BUILT_IN_DEFINITIONS } from '../../../workflows/built-in-definitions';

const ANTHROPIC_ENV = {
  MODEL_CONNECTIONS: JSON.stringify({
    claude: { backend: 'anthropic', allowed_models: ['claude-sonnet-4'], capabilities: ['structured_output', 'tools'] },
  }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'claude', model: 'claude-sonnet-4' }),
  ANTHROPIC_API_KEY: 'anthropic-key-value',
};

function parse(env: NodeJS.ProcessEnv): ModelConfiguration {
  const result = parseModelConfiguration(env);
  if (!result.config) throw new Error(result.problems.join('\n'));
  return result.config;
}

/** The station names of the container family (activities/stations/code-change, bug/analyze-bug-station.ts). */
const CONTAINER_STATIONS = ['implement_task', 'implement_bug_fix', 'execute_task_changes', 'local_review', 'update_documentation', 'analyze_bug', 'run_qualitative_review', 'code_review', 'rebase', 'attempt_ci_fix'];

describe('container stages', () => {
  it('are the model keys of the built-in container nodes plus the two the stations set themselves, nothing host-only', () => {
    const nodes = Object.values(BUILT_IN_DEFINITIONS).flatMap((d) => Object.values(d.nodes));
    const keysOf = (inContainer: boolean) => new Set(nodes.flatMap((n) => (n.kind === 'station' && n.model_key && CONTAINER_STATIONS.includes(n.station) === inContainer ? [n.model_key] : [])));
    expect([...keysOf(true), 'ci_analysis', 'implement_review_fix'].sort()).toEqual([...CONTAINER_STATION_KEYS].sort());
    expect([...keysOf(false)].filter((key) => (CONTAINER_STATION_KEYS as readonly string[]).includes(key))).toEqual([]);
    // The legacy default list keeps its meaning and stays within the container stages.
    expect(CONTAINER_KEYS.every((key) => CONTAINER_STATION_KEYS.includes(key))).toBe(true);
  });

  it('resolve with the container target, so legacy mode shows CONTAINER_LLM_MODEL for every container stage', () => {
    const config = parse({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'claude-sonnet-4', CONTAINER_LLM_MODEL: 'claude-opus-4', ANTHROPIC_API_KEY: 'k' });
    const models = Object.fromEntries(resolveStages(config).map((r) => [r.key, r.ok ? r.target.model : r.problem]));
    for (const key of MODEL_POLICY_KEYS) expect(models[key]).toBe(stationPlace(key) === 'container' ? 'claude-opus-4' : 'claude-sonnet-4');
  });
});

describe('stagePlace', () => {
  const config = parse(ANTHROPIC_ENV);
  const resolutions = resolveStages(config);
  const code = resolutions.find((r) => r.key === 'code_review')!;
  const prd = resolutions.find((r) => r.key === 'generate_prd')!;

  it('an anthropic target can run in a container when ANTHROPIC_API_KEY is in the worker environment', () => {
    expect(stagePlace(code, ANTHROPIC_ENV)).toEqual({ runs_in: 'container', container_ready: true });
    expect(describeStagePlace(code, stagePlace(code, ANTHROPIC_ENV))).toBe('container: can run');
    expect(unreadyContainerStages(resolutions, ANTHROPIC_ENV)).toBe('');
  });

  it('without ANTHROPIC_API_KEY it cannot, and says why; host stages only say host', () => {
    const env = { ...ANTHROPIC_ENV, ANTHROPIC_API_KEY: '' };
    const place = stagePlace(code, env);
    expect(place).toEqual({ runs_in: 'container', container_ready: false, container_problem: "connection claude (anthropic): ANTHROPIC_API_KEY is not set in the worker's environment" });
    expect(describeStagePlace(code, place)).toBe("container: cannot run: connection claude (anthropic): ANTHROPIC_API_KEY is not set in the worker's environment");
    expect(stagePlace(prd, env)).toEqual({ runs_in: 'host' });
    expect(describeStagePlace(prd, stagePlace(prd, env))).toBe('host');
    // One group per reason, every container stage named once (in policy key order).
    const stages = MODEL_POLICY_KEYS.filter((key) => stationPlace(key) === 'container');
    expect(stages).toHaveLength(CONTAINER_STATION_KEYS.length);
    expect(unreadyContainerStages(resolutions, env)).toBe(`${stages.join(', ')} (connection claude (anthropic): ANTHROPIC_API_KEY is not set in the worker's environment)`);
  });

  it('a container stage whose target is invalid cannot run; its get-config line already says why', () => {
    const invalid = resolveStages(config, { policy: { rebase: 'claude:gpt-9' } }).find((r) => r.key === 'rebase')!;
    const place = stagePlace(invalid, ANTHROPIC_ENV);
    expect(place).toMatchObject({ container_ready: false, container_problem: expect.stringContaining('model "gpt-9" is not allowed') });
    expect(describeStagePlace(invalid, place)).toBe('');
  });
});
