import { connectionIssue, formatTarget, parseTarget, targetIssue, type ModelConfiguration, type ModelConnection, type ModelTarget, type TargetIssueCode } from './model-configuration';
import { defaultExecutionPlace, isModelPolicyKey, type ModelPolicyKey } from './model-policy-keys';
import type { ProjectPropertiesPort } from './project-properties-port';

/** The project's model properties (SPEC 2.8) as read from the tracker: `service.model_policy`, `service.model_default`. */
export interface ProjectModelPolicy {
  policy?: unknown;
  default?: unknown;
}

export const PROJECT_MODEL_POLICY_PROPERTY = 'service.model_policy';
export const PROJECT_MODEL_DEFAULT_PROPERTY = 'service.model_default';

export type TargetSource = 'project_policy' | 'project_default' | 'deployment_policy' | 'deployment_default' | 'legacy';

/** Why a resolution failed: what the operator has to change depends on it. */
export type ResolutionFailureCode = TargetIssueCode | 'invalid_policy' | 'unknown_keys' | 'invalid_target' | 'not_configured';

export type Resolution =
  | { ok: true; key: ModelPolicyKey; target: ModelTarget; connection: ModelConnection; source: TargetSource }
  | { ok: false; key: ModelPolicyKey; source: TargetSource | 'none'; code: ResolutionFailureCode; problem: string; report: string };

export interface ResolveOptions {
  /** Where the agent runs; only the legacy mode distinguishes (CONTAINER_LLM_MODEL). Default: by stage. */
  runsIn?: 'host' | 'container';
}

/** A stage that cannot run because its model policy is invalid: fail closed, post `report`, do not retry as is. */
export class ModelPolicyError extends Error {
  override readonly name = 'ModelPolicyError';
  readonly key: ModelPolicyKey;
  readonly source: TargetSource | 'none';
  readonly code: ResolutionFailureCode;
  readonly problem: string;
  readonly report: string;
  constructor(resolution: Extract<Resolution, { ok: false }>) {
    super(`model policy for ${resolution.key} is invalid (${resolution.source}): ${resolution.problem}`);
    this.key = resolution.key;
    this.source = resolution.source;
    this.code = resolution.code;
    this.problem = resolution.problem;
    this.report = resolution.report;
  }
}

/** What an operator needs to fix an invalid policy: every connection a project may name, with its models. */
export function availableModelsReport(config: ModelConfiguration): string {
  const visible = Object.values(config.connections);
  if (visible.length === 0) {
    return config.mode === 'legacy'
      ? 'No connections are available to project policy on this deployment (legacy single-model mode: LLM_BACKEND/LLM_MODEL serve every stage).'
      : 'No connections are available: this deployment has no model configured.';
  }
  return [
    'Available connections and models (write targets as <connection>:<model>):',
    ...visible.map((c) => `- ${c.name} (${c.backend}; ${c.capabilities.join(', ') || 'no capabilities'}): ${c.allowed_models.join(', ')}`),
    'Stages other than automated_review_triage, proposal_review_triage, generate_pr_description and sync_pr_description need a connection with "tools".',
  ].join('\n');
}

/**
 * Resolves one model invocation (SPEC 2.10). First match wins: project stage override, project default, deployment
 * stage mapping, deployment default, legacy. The first target found is the one used: when it is invalid the stage
 * fails closed with a report; it never falls through to a weaker choice, so a typo in project policy cannot quietly
 * run a stage on another model. Project policy cannot name the legacy connection nor weaken the capability rule.
 * Pure: the caller reads the project policy (see resolveForExecution) and keeps the result for the execution.
 */
export function resolveModelTarget(config: ModelConfiguration, key: ModelPolicyKey, project: ProjectModelPolicy = {}, options: ResolveOptions = {}): Resolution {
  const fail = (source: TargetSource | 'none', code: ResolutionFailureCode, problem: string): Resolution => ({
    ok: false, key, source, code, problem, report: `The model policy for stage ${key} is invalid (${describeSource(source)}): ${problem}\n\n${availableModelsReport(config)}`,
  });
  const candidates: Array<[TargetSource, unknown]> = [];
  if (config.mode === 'connections') {
    const policy = project.policy;
    if (policy !== undefined && policy !== null) {
      if (typeof policy !== 'object' || Array.isArray(policy)) return fail('project_policy', 'invalid_policy', `${PROJECT_MODEL_POLICY_PROPERTY} must be a JSON object of stage to "connection:model"`);
      // Unknown keys fail validation for every stage, not only for the misspelt one: the project meant something else.
      const unknown = Object.keys(policy).filter((k) => !isModelPolicyKey(k));
      if (unknown.length) return fail('project_policy', 'unknown_keys', `${PROJECT_MODEL_POLICY_PROPERTY} has unknown keys: ${unknown.join(', ')}`);
      const entry = (policy as Record<string, unknown>)[key];
      if (entry !== undefined) candidates.push(['project_policy', entry]);
    }
    if (project.default !== undefined && project.default !== null) candidates.push(['project_default', project.default]);
    if (config.policy[key]) candidates.push(['deployment_policy', config.policy[key]]);
    if (config.default) candidates.push(['deployment_default', config.default]);
  }
  if (config.legacy) {
    const runsIn = options.runsIn ?? defaultExecutionPlace(key);
    candidates.push(['legacy', runsIn === 'container' ? config.legacy.container_target : config.legacy.target]);
  }
  const first = candidates[0];
  if (!first) return fail('none', 'not_configured', 'no model is configured for this deployment');
  const [source, raw] = first;
  if (source === 'legacy' && config.legacy) {
    const target = raw as ModelTarget;
    const issue = connectionIssue(config.legacy.connection, target.model, key);
    return issue ? fail(source, issue.code, issue.message) : { ok: true, key, target, connection: config.legacy.connection, source };
  }
  const target = parseTarget(raw);
  if (!target) return fail(source, 'invalid_target', `${JSON.stringify(raw)} is not a "connection:model" target`);
  const issue = targetIssue(config, target, key);
  if (issue) return fail(source, issue.code, issue.message);
  return { ok: true, key, target, connection: config.connections[target.connection]!, source };
}

/**
 * The project's policy, read before each execution when MODEL_CONNECTIONS is configured; legacy and model-less
 * deployments make no tracker request at all. A failed read throws (the activity retries): running on the deployment
 * default because the tracker was briefly unreachable would ignore what the project asked for.
 */
export async function loadProjectModelPolicy(config: ModelConfiguration, properties: Pick<ProjectPropertiesPort, 'getProjectProperty'> | undefined, projectKey: string): Promise<ProjectModelPolicy> {
  if (config.mode !== 'connections') return {};
  if (!properties) throw new Error('the tracker project properties client is required when MODEL_CONNECTIONS is configured');
  const [policy, fallback] = await Promise.all([
    properties.getProjectProperty(projectKey, PROJECT_MODEL_POLICY_PROPERTY),
    properties.getProjectProperty(projectKey, PROJECT_MODEL_DEFAULT_PROPERTY),
  ]);
  return { policy, default: fallback };
}

/**
 * One model invocation's target, resolved right before the execution and fixed for it (the caller keeps the returned
 * object; nothing re-reads the policy mid-execution). Throws ModelPolicyError when the policy is invalid.
 */
export async function resolveForExecution(input: {
  config: ModelConfiguration;
  key: ModelPolicyKey;
  projectKey: string;
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  runsIn?: 'host' | 'container';
}): Promise<Extract<Resolution, { ok: true }>> {
  const project = await loadProjectModelPolicy(input.config, input.properties, input.projectKey);
  const resolution = resolveModelTarget(input.config, input.key, project, { runsIn: input.runsIn });
  if (!resolution.ok) throw new ModelPolicyError(resolution);
  return Object.freeze(resolution);
}

export function describeSource(source: TargetSource | 'none'): string {
  switch (source) {
    case 'project_policy': return `project property ${PROJECT_MODEL_POLICY_PROPERTY}`;
    case 'project_default': return `project property ${PROJECT_MODEL_DEFAULT_PROPERTY}`;
    case 'deployment_policy': return 'MODEL_POLICY';
    case 'deployment_default': return 'MODEL_DEFAULT';
    case 'legacy': return 'LLM_BACKEND/LLM_MODEL';
    case 'none': return 'no configuration';
  }
}

export function describeResolution(resolution: Resolution): string {
  return resolution.ok ? `${formatTarget(resolution.target)} (${resolution.source})` : `INVALID (${resolution.source}): ${resolution.problem}`;
}
