import { formatTarget, parseTarget, targetProblem, type ModelConfiguration, type ModelConnection, type ModelTarget } from './model-configuration';
import { isModelPolicyKey, type ModelPolicyKey } from './model-policy-keys';
import type { ProjectPropertiesPort } from '../providers/tracker/project-properties-port';

/** The project's model properties (SPEC 2.8): `service.model_policy` and `service.model_default`. */
export interface ProjectModelPolicy {
  policy?: unknown;
  default?: unknown;
}

export type TargetSource = 'project_policy' | 'project_default' | 'deployment_policy' | 'deployment_default' | 'legacy';

export type Resolution =
  | { ok: true; key: ModelPolicyKey; target: ModelTarget; connection: ModelConnection; source: TargetSource }
  | { ok: false; key: ModelPolicyKey; source: TargetSource | 'none'; problem: string; report: string };

/** What an operator needs to fix an invalid policy: every connection a project may name, with its models. */
export function availableModelsReport(config: ModelConfiguration): string {
  const visible = Object.values(config.connections).filter((c) => !c.legacy);
  if (visible.length === 0) return 'No connections are available to project policy on this deployment (legacy single-model mode).';
  return ['Available connections and models:', ...visible.map((c) => `- ${c.name} (${c.backend}; ${c.capabilities.join(', ') || 'no capabilities'}): ${c.allowed_models.join(', ')}`)].join('\n');
}

/**
 * Resolves one model invocation (SPEC 2.10). First match wins: project stage override, project default, deployment
 * stage mapping, deployment default, legacy. The first target found is the one used: when it is invalid the stage
 * fails closed with a report, it never falls through to a weaker choice. Project policy cannot name the legacy
 * connection nor weaken the capability rule.
 */
export function resolveModelTarget(config: ModelConfiguration, key: ModelPolicyKey, project: ProjectModelPolicy = {}): Resolution {
  const fail = (source: TargetSource | 'none', problem: string): Resolution => ({
    ok: false, key, source, problem, report: `Model policy for stage ${key} is invalid (${source}): ${problem}\n\n${availableModelsReport(config)}`,
  });
  const candidates: Array<[TargetSource, unknown]> = [];
  if (config.mode === 'connections') {
    const policy = project.policy;
    if (policy !== undefined) {
      if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) return fail('project_policy', 'service.model_policy must be a JSON object of stage to "connection:model"');
      const unknown = Object.keys(policy).filter((k) => !isModelPolicyKey(k));
      if (unknown.length) return fail('project_policy', `service.model_policy has unknown keys: ${unknown.join(', ')}`);
      if ((policy as Record<string, unknown>)[key] !== undefined) candidates.push(['project_policy', (policy as Record<string, unknown>)[key]]);
    }
    if (project.default !== undefined) candidates.push(['project_default', project.default]);
    if (config.policy[key]) candidates.push(['deployment_policy', config.policy[key]]);
    if (config.default) candidates.push(['deployment_default', config.default]);
  } else if (config.mode === 'legacy' && config.legacy) {
    candidates.push(['legacy', key === 'implement_work' ? config.legacy.container_target : config.legacy.target]);
  }
  const first = candidates[0];
  if (!first) return fail('none', 'no model is configured for this deployment');
  const [source, raw] = first;
  const target = parseTarget(raw);
  if (!target) return fail(source, `${JSON.stringify(raw)} is not a "connection:model" target`);
  const connection = config.connections[target.connection];
  if ((source === 'project_policy' || source === 'project_default') && connection?.legacy) {
    return fail(source, `connection "${target.connection}" is not available to project policy`);
  }
  const problem = targetProblem(config, target, key);
  if (problem || !connection) return fail(source, problem ?? `connection "${target.connection}" is not defined`);
  return { ok: true, key, target, connection, source };
}

/**
 * The project's policy, read before each execution when MODEL_CONNECTIONS is configured; legacy and model-less
 * deployments make no tracker request at all.
 */
export async function loadProjectModelPolicy(config: ModelConfiguration, properties: Pick<ProjectPropertiesPort, 'getProjectProperty'> | undefined, projectKey: string): Promise<ProjectModelPolicy> {
  if (config.mode !== 'connections' || !properties) return {};
  const [policy, fallback] = await Promise.all([
    properties.getProjectProperty(projectKey, 'service.model_policy'),
    properties.getProjectProperty(projectKey, 'service.model_default'),
  ]);
  return { policy, default: fallback };
}

export function describeResolution(resolution: Resolution): string {
  return resolution.ok ? `${formatTarget(resolution.target)} (${resolution.source})` : `INVALID (${resolution.source}): ${resolution.problem}`;
}
