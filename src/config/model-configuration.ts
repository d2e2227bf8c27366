import { isModelPolicyKey, MODEL_POLICY_KEYS, requiresTools, type ModelPolicyKey } from './model-policy-keys';

/**
 * Deployment model configuration (SPEC 2.10): MODEL_CONNECTIONS, MODEL_DEFAULT and MODEL_POLICY, or the legacy pair
 * LLM_BACKEND + LLM_MODEL (with CONTAINER_LLM_MODEL). Connections hold no credentials: each backend reads its
 * provider's native variables, checked here so a missing key is a startup error, not a failed stage at 3 a.m.
 *
 * Backends:
 *   openai-compatible  any OpenAI-style chat completions endpoint; `base_url` in the connection (an address, not a
 *                      credential) or OPENAI_BASE_URL; key from OPENAI_API_KEY (optional: local servers need none)
 *   anthropic          ANTHROPIC_API_KEY
 *   cloud-ai           Google Vertex AI with `project` and `location`; GOOGLE_APPLICATION_CREDENTIALS (service account
 *                      file) or GOOGLE_VERTEX_API_KEY (express mode)
 */
export const MODEL_BACKENDS = ['openai-compatible', 'anthropic', 'cloud-ai'] as const;
export type ModelBackend = (typeof MODEL_BACKENDS)[number];
export const MODEL_CAPABILITIES = ['structured_output', 'tools'] as const;
export type ModelCapability = (typeof MODEL_CAPABILITIES)[number];
export const MAX_OUTPUT_TOKENS_LIMIT = 131_072;
export const LEGACY_CONNECTION = 'legacy';

export interface ModelConnection {
  name: string;
  backend: ModelBackend;
  project?: string;
  location?: string;
  base_url?: string;
  allowed_models: string[];
  capabilities: ModelCapability[];
  max_output_tokens: number;
  /** The implicit connection of LLM_BACKEND/LLM_MODEL: never visible to project policy. */
  legacy: boolean;
}

export interface ModelTarget {
  connection: string;
  model: string;
}

export interface ModelConfiguration {
  mode: 'connections' | 'legacy' | 'none';
  connections: Record<string, ModelConnection>;
  default?: ModelTarget;
  policy: Partial<Record<ModelPolicyKey, ModelTarget>>;
  /** Legacy mode: the host model and the container model (CONTAINER_LLM_MODEL, else LLM_MODEL). */
  legacy?: { target: ModelTarget; container_target: ModelTarget };
}

export interface ModelConfigurationResult {
  config?: ModelConfiguration;
  problems: string[];
  warnings: string[];
}

const CREDENTIAL_FIELD = /(key|token|secret|password|credential)/i;
const CONNECTION_FIELDS = new Set(['backend', 'project', 'location', 'base_url', 'allowed_models', 'capabilities', 'max_output_tokens']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(name: string, raw: string, problems: string[]): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    problems.push(`${name}: not valid JSON (${(error as Error).message})`);
    return undefined;
  }
}

/** Checks the provider's native credentials and backend-specific fields of a connection. */
function backendProblems(connection: ModelConnection, env: NodeJS.ProcessEnv, where: string): string[] {
  const problems: string[] = [];
  if (connection.backend === 'cloud-ai') {
    if (!connection.project) problems.push(`${where}: backend cloud-ai needs "project"`);
    if (!connection.location) problems.push(`${where}: backend cloud-ai needs "location"`);
    if (!env.GOOGLE_APPLICATION_CREDENTIALS?.trim() && !env.GOOGLE_VERTEX_API_KEY?.trim()) {
      problems.push(`${where}: backend cloud-ai needs GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_VERTEX_API_KEY in the environment`);
    }
  } else if (connection.backend === 'anthropic') {
    if (!env.ANTHROPIC_API_KEY?.trim()) problems.push(`${where}: backend anthropic needs ANTHROPIC_API_KEY in the environment`);
  } else if (!connection.base_url && !env.OPENAI_BASE_URL?.trim()) {
    problems.push(`${where}: backend openai-compatible needs "base_url" in the connection or OPENAI_BASE_URL`);
  }
  return problems;
}

function parseConnection(name: string, raw: unknown, problems: string[]): ModelConnection | undefined {
  const where = `MODEL_CONNECTIONS.${name}`;
  if (!isObject(raw)) {
    problems.push(`${where}: expected an object`);
    return undefined;
  }
  const before = problems.length;
  for (const field of Object.keys(raw)) {
    if (CONNECTION_FIELDS.has(field)) continue;
    if (CREDENTIAL_FIELD.test(field)) problems.push(`${where}.${field}: connections hold no credentials; the ${String(raw.backend ?? 'provider')} backend reads its native environment variables`);
    else problems.push(`${where}.${field}: unknown field (known: ${[...CONNECTION_FIELDS].join(', ')})`);
  }
  const backend = raw.backend;
  if (typeof backend !== 'string' || !(MODEL_BACKENDS as readonly string[]).includes(backend)) {
    problems.push(`${where}.backend: expected one of ${MODEL_BACKENDS.join(', ')}, got ${JSON.stringify(backend)}`);
  }
  const models = raw.allowed_models;
  if (!Array.isArray(models) || models.length === 0 || !models.every((m) => typeof m === 'string' && m.trim() !== '')) {
    problems.push(`${where}.allowed_models: expected a non-empty array of model names`);
  }
  const capabilities = raw.capabilities ?? [];
  if (!Array.isArray(capabilities) || !capabilities.every((c) => (MODEL_CAPABILITIES as readonly string[]).includes(c as string))) {
    problems.push(`${where}.capabilities: expected an array of ${MODEL_CAPABILITIES.join(', ')}`);
  }
  const maxTokens = raw.max_output_tokens ?? 8192;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_OUTPUT_TOKENS_LIMIT) {
    problems.push(`${where}.max_output_tokens: expected a whole number from 1 to ${MAX_OUTPUT_TOKENS_LIMIT}, got ${JSON.stringify(maxTokens)}`);
  }
  for (const field of ['project', 'location', 'base_url'] as const) {
    if (raw[field] !== undefined && typeof raw[field] !== 'string') problems.push(`${where}.${field}: expected a string`);
  }
  if (problems.length > before) return undefined;
  return {
    name,
    backend: backend as ModelBackend,
    project: raw.project as string | undefined,
    location: raw.location as string | undefined,
    base_url: raw.base_url as string | undefined,
    allowed_models: models as string[],
    capabilities: capabilities as ModelCapability[],
    max_output_tokens: maxTokens as number,
    legacy: false,
  };
}

/** `{connection, model}` (the deployment form) or `connection:model` (the project-property form). */
export function parseTarget(raw: unknown): ModelTarget | undefined {
  if (typeof raw === 'string') {
    const colon = raw.indexOf(':');
    if (colon <= 0 || colon === raw.length - 1) return undefined;
    return { connection: raw.slice(0, colon).trim(), model: raw.slice(colon + 1).trim() };
  }
  if (isObject(raw) && typeof raw.connection === 'string' && typeof raw.model === 'string' && raw.connection && raw.model) {
    return { connection: raw.connection, model: raw.model };
  }
  return undefined;
}

export function formatTarget(target: ModelTarget): string {
  return `${target.connection}:${target.model}`;
}

/** A target problem (unknown connection, model not allowed, missing capability), or undefined when usable. */
export function targetProblem(config: Pick<ModelConfiguration, 'connections'>, target: ModelTarget, key?: ModelPolicyKey): string | undefined {
  const connection = config.connections[target.connection];
  if (!connection) return `connection "${target.connection}" is not defined (defined: ${Object.keys(config.connections).join(', ') || 'none'})`;
  if (!connection.allowed_models.includes(target.model)) {
    return `model "${target.model}" is not allowed on connection "${target.connection}" (allowed: ${connection.allowed_models.join(', ')})`;
  }
  if (key && requiresTools(key) && !connection.capabilities.includes('tools')) {
    return `stage ${key} needs a connection with the "tools" capability; "${target.connection}" has ${connection.capabilities.join(', ') || 'none'}`;
  }
  return undefined;
}

export function parseModelConfiguration(env: NodeJS.ProcessEnv = process.env): ModelConfigurationResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const text = (name: string) => env[name]?.trim() || undefined;
  const rawConnections = text('MODEL_CONNECTIONS');
  const rawDefault = text('MODEL_DEFAULT');
  const rawPolicy = text('MODEL_POLICY');
  const llmBackend = text('LLM_BACKEND');
  const llmModel = text('LLM_MODEL');
  const containerModel = text('CONTAINER_LLM_MODEL');

  if (!rawConnections) {
    if (rawDefault) problems.push('MODEL_DEFAULT is set but MODEL_CONNECTIONS is not: define the connection it names');
    if (rawPolicy) problems.push('MODEL_POLICY is set but MODEL_CONNECTIONS is not: define the connections it names');
    if (!llmBackend && !llmModel) {
      if (problems.length === 0) warnings.push('no model is configured (MODEL_CONNECTIONS + MODEL_DEFAULT, or LLM_BACKEND + LLM_MODEL): AI stages will fail closed');
      return problems.length ? { problems, warnings } : { config: { mode: 'none', connections: {}, policy: {} }, problems, warnings };
    }
    if (!llmBackend || !llmModel) problems.push('LLM_BACKEND and LLM_MODEL are required together when MODEL_CONNECTIONS and MODEL_DEFAULT are absent');
    if (llmBackend && !(MODEL_BACKENDS as readonly string[]).includes(llmBackend)) problems.push(`LLM_BACKEND: expected one of ${MODEL_BACKENDS.join(', ')}, got "${llmBackend}"`);
    if (problems.length) return { problems, warnings };
    const connection: ModelConnection = {
      name: LEGACY_CONNECTION, backend: llmBackend as ModelBackend, allowed_models: [...new Set([llmModel!, ...(containerModel ? [containerModel] : [])])],
      capabilities: ['structured_output', 'tools'], max_output_tokens: 8192, legacy: true,
      project: text('GOOGLE_VERTEX_PROJECT') ?? text('GOOGLE_CLOUD_PROJECT'), location: text('GOOGLE_VERTEX_LOCATION') ?? text('GOOGLE_CLOUD_LOCATION'),
    };
    problems.push(...backendProblems(connection, env, 'LLM_BACKEND'));
    if (problems.length) return { problems, warnings };
    const target = { connection: LEGACY_CONNECTION, model: llmModel! };
    return {
      config: { mode: 'legacy', connections: { [LEGACY_CONNECTION]: connection }, policy: {}, legacy: { target, container_target: { connection: LEGACY_CONNECTION, model: containerModel ?? llmModel! } } },
      problems, warnings,
    };
  }

  if (llmBackend || llmModel) warnings.push('LLM_BACKEND/LLM_MODEL are ignored because MODEL_CONNECTIONS is set');
  const connections: Record<string, ModelConnection> = {};
  const parsedConnections = parseJson('MODEL_CONNECTIONS', rawConnections, problems);
  if (parsedConnections !== undefined) {
    if (!isObject(parsedConnections) || Object.keys(parsedConnections).length === 0) problems.push('MODEL_CONNECTIONS: expected a JSON object with at least one connection');
    else {
      for (const [name, raw] of Object.entries(parsedConnections)) {
        const connection = parseConnection(name, raw, problems);
        if (connection) {
          problems.push(...backendProblems(connection, env, `MODEL_CONNECTIONS.${name}`));
          connections[name] = connection;
        }
      }
    }
  }
  let defaultTarget: ModelTarget | undefined;
  if (!rawDefault) problems.push('MODEL_DEFAULT is required with MODEL_CONNECTIONS: {"connection": "...", "model": "..."}');
  else {
    const parsed = parseJson('MODEL_DEFAULT', rawDefault, problems);
    if (parsed !== undefined) {
      defaultTarget = isObject(parsed) ? parseTarget(parsed) : undefined;
      if (!defaultTarget) problems.push('MODEL_DEFAULT: expected {"connection": "...", "model": "..."}');
      else {
        const problem = targetProblem({ connections }, defaultTarget);
        if (problem && Object.keys(connections).length) problems.push(`MODEL_DEFAULT: ${problem}`);
      }
    }
  }
  const policy: Partial<Record<ModelPolicyKey, ModelTarget>> = {};
  if (rawPolicy) {
    const parsed = parseJson('MODEL_POLICY', rawPolicy, problems);
    if (parsed !== undefined && !isObject(parsed)) problems.push('MODEL_POLICY: expected a JSON object of policy key to {"connection", "model"}');
    else if (parsed !== undefined) {
      for (const [key, raw] of Object.entries(parsed)) {
        if (!isModelPolicyKey(key)) {
          problems.push(`MODEL_POLICY.${key}: unknown policy key (keys: ${MODEL_POLICY_KEYS.join(', ')})`);
          continue;
        }
        const target = isObject(raw) ? parseTarget(raw) : undefined;
        if (!target) {
          problems.push(`MODEL_POLICY.${key}: expected {"connection": "...", "model": "..."}`);
          continue;
        }
        const problem = targetProblem({ connections }, target, key);
        if (problem) problems.push(`MODEL_POLICY.${key}: ${problem}`);
        else policy[key] = target;
      }
    }
  }
  if (defaultTarget && !problems.length) {
    const connection = connections[defaultTarget.connection];
    const uncovered = MODEL_POLICY_KEYS.filter((key) => requiresTools(key) && !policy[key]);
    if (connection && !connection.capabilities.includes('tools') && uncovered.length) {
      problems.push(`MODEL_DEFAULT: connection "${connection.name}" lacks the "tools" capability, which ${uncovered.length} stages without a MODEL_POLICY entry need (e.g. ${uncovered.slice(0, 3).join(', ')})`);
    }
  }
  if (problems.length) return { problems, warnings };
  return { config: { mode: 'connections', connections, default: defaultTarget, policy }, problems, warnings };
}
