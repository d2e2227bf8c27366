import type { ModelConfiguration } from '../config/model-configuration';
import { MODEL_POLICY_KEYS, stationPlace } from '../config/model-policy-keys';
import { resolveModelTarget, type ProjectModelPolicy, type Resolution } from '../config/model-target-resolver';
import { proxyUpstreamOf, ProxyUpstreamError } from './model-proxy';

/**
 * Where a stage's agent runs and, for a container stage, whether the model proxy could serve its target now. Field
 * names are those of `get-config --models --json`.
 */
export type StagePlace =
  | { runs_in: 'host' }
  | { runs_in: 'container'; container_ready: true }
  | { runs_in: 'container'; container_ready: false; container_problem: string };

/**
 * Every policy key resolved as its station resolves it: a container stage gets the container's target (in legacy mode
 * CONTAINER_LLM_MODEL), so what a report shows is what the station will run on.
 */
export function resolveStages(config: ModelConfiguration, project: ProjectModelPolicy = {}): Resolution[] {
  return MODEL_POLICY_KEYS.map((key) => resolveModelTarget(config, key, project, { runsIn: stationPlace(key) }));
}

/**
 * Asks proxyUpstreamOf, the very check a container station makes before its container starts, so this answer cannot
 * drift from what the station will do. Builds nothing that calls out: the provider is created only on a call.
 */
export function stagePlace(resolution: Resolution, env: NodeJS.ProcessEnv): StagePlace {
  if (stationPlace(resolution.key) === 'host') return { runs_in: 'host' };
  if (!resolution.ok) return { runs_in: 'container', container_ready: false, container_problem: resolution.problem };
  try {
    proxyUpstreamOf(resolution.connection, resolution.target.model, env);
    return { runs_in: 'container', container_ready: true };
  } catch (error) {
    if (!(error instanceof ProxyUpstreamError)) throw error;
    return { runs_in: 'container', container_ready: false, container_problem: error.message };
  }
}

/** The column of `get-config --models`; empty for a stage whose target is invalid (its line already says why). */
export function describeStagePlace(resolution: Resolution, place: StagePlace): string {
  if (!resolution.ok) return '';
  if (place.runs_in === 'host') return 'host';
  return place.container_ready ? 'container: can run' : `container: cannot run: ${place.container_problem}`;
}

/**
 * The container stages that cannot run now, one group per reason (several stages usually share one connection):
 * `a, b (reason); c (other reason)`. Empty when all can.
 */
export function unreadyContainerStages(resolutions: readonly Resolution[], env: NodeJS.ProcessEnv): string {
  const byProblem = new Map<string, string[]>();
  for (const resolution of resolutions) {
    const place = stagePlace(resolution, env);
    if (place.runs_in === 'host' || place.container_ready) continue;
    byProblem.set(place.container_problem, [...(byProblem.get(place.container_problem) ?? []), resolution.key]);
  }
  return [...byProblem].map(([problem, keys]) => `${keys.join(', ')} (${problem})`).join('; ');
}
