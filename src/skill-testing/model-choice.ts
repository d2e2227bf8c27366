import { formatTarget, parseModelConfiguration, parseTarget, targetIssue, connectionIssue, type ModelConfiguration } from '../config/model-configuration';
import { isModelPolicyKey, type ModelPolicyKey } from '../config/model-policy-keys';
import { availableModelsReport, resolveModelTarget } from '../config/model-target-resolver';
import type { ResolvedTarget } from '../models/model-client';

export class ModelChoiceError extends Error {
  override readonly name = 'ModelChoiceError';
}

/** Skills whose stage reads another policy key than the skill's own name (SPEC 2.10 keys). */
const SKILL_POLICY_KEY: Record<string, ModelPolicyKey> = {
  implement_task: 'implement_work',
  'workspace-task': 'implement_work',
  local_review: 'local_code_review',
  fix_ci: 'ci_fix',
  update_documentation: 'update_docs',
};

export function policyKeyOfSkill(skill: string): ModelPolicyKey | undefined {
  return SKILL_POLICY_KEY[skill] ?? (isModelPolicyKey(skill) ? skill : undefined);
}

/** The deployment's model configuration, or an error listing every problem (as `service get-config` does). */
export function modelConfigurationFrom(env: NodeJS.ProcessEnv): ModelConfiguration {
  const parsed = parseModelConfiguration(env);
  if (!parsed.config) throw new ModelChoiceError(`the model configuration is invalid:\n${parsed.problems.join('\n')}`);
  if (parsed.config.mode === 'none') throw new ModelChoiceError('no model is configured: set MODEL_CONNECTIONS and MODEL_DEFAULT (or LLM_BACKEND and LLM_MODEL)');
  return parsed.config;
}

/**
 * The model a skill test (or the judge) uses. An explicit choice is `connection:model` or a model name that exactly
 * one connection allows; without one, the skill's policy key resolves as the worker would for a project without
 * policy (MODEL_POLICY, MODEL_DEFAULT, then LLM_BACKEND/LLM_MODEL). `--project` never reads the tracker: the test is
 * offline.
 */
export function chooseModel(config: ModelConfiguration, choice: string | undefined, skill: string): ResolvedTarget {
  const key = policyKeyOfSkill(skill) ?? 'generate_prd';
  if (!choice) {
    const resolution = resolveModelTarget(config, key);
    if (!resolution.ok) throw new ModelChoiceError(resolution.report);
    return resolution;
  }
  const explicit = choice.includes(':') ? parseTarget(choice) : undefined;
  if (explicit && config.connections[explicit.connection]) {
    const issue = targetIssue(config, explicit);
    if (issue) throw new ModelChoiceError(`${choice}: ${issue.message}\n\n${availableModelsReport(config)}`);
    return { key, target: explicit, connection: config.connections[explicit.connection]!, source: 'deployment_policy' };
  }
  const connections = Object.values(config.connections).filter((c) => c.allowed_models.includes(choice));
  if (connections.length > 1) throw new ModelChoiceError(`model "${choice}" is allowed on several connections (${connections.map((c) => c.name).join(', ')}): write it as <connection>:${choice}`);
  if (connections.length === 1) return { key, target: { connection: connections[0]!.name, model: choice }, connection: connections[0]!, source: 'deployment_policy' };
  const legacy = config.legacy;
  if (legacy && !connectionIssue(legacy.connection, choice)) return { key, target: { connection: legacy.connection.name, model: choice }, connection: legacy.connection, source: 'legacy' };
  throw new ModelChoiceError(`model "${choice}" is not available on this machine${legacy ? ` (legacy LLM_MODEL allows ${legacy.connection.allowed_models.join(', ')})` : ''}\n\n${availableModelsReport(config)}`);
}

export function targetLabel(target: ResolvedTarget): string {
  return formatTarget(target.target);
}
