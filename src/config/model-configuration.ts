import { isModelPolicyKey, MODEL_POLICY_KEYS, requiresTools, type ModelPolicyKey } from './model-policy-keys';

/**
 * Deployment model configuration (SPEC 2.10): MODEL_CONNECTIONS, MODEL_DEFAULT and MODEL_POLICY, and the legacy pair
 * LLM_BACKEND + LLM_MODEL (with CONTAINER_LLM_MODEL). Parsing is pure: it returns one line per problem so startup can
 * print them all and exit non-zero, instead of failing a stage at 3 a.m.
 *
 * Modes:
 *   connections  MODEL_CONNECTIONS is set. Project policy (tracker project properties) is read before each execution.
 *                The default target is MODEL_DEFAULT; when MODEL_DEFAULT is absent, LLM_BACKEND + LLM_MODEL are the
 *                last fallback (and then required together). The legacy connection is kept apart from the named
 *                connections: project policy can never name it.
 *   legacy       only LLM_BACKEND + LLM_MODEL (required together): one model for the host, CONTAINER_LLM_MODEL (else
 *                LLM_MODEL) for container stages. No tracker request is ever made for model policy.
 *   none         nothing is configured: a warning; AI stages fail closed (the gateway needs no model).
 *
 * Connections hold no credentials; each backend reads its provider's native environment variables, and startup
 * checks that they are present:
 *   openai-compatible  any OpenAI-style chat-completions endpoint. The address comes from the connection's `base_url`
 *                      (an address, not a credential) or OPENAI_BASE_URL; the key from OPENAI_API_KEY, optional
 *                      because local servers need none.
 *   anthropic          ANTHROPIC_API_KEY.
 *   cloud-ai           Google Vertex AI with the connection's `project` and `location` (legacy: GOOGLE_VERTEX_PROJECT
 *                      and GOOGLE_VERTEX_LOCATION); GOOGLE_APPLICATION_CREDENTIALS (service account file) or
 *                      GOOGLE_VERTEX_API_KEY (express mode).
 *
 * Target forms: deployment variables use `{"connection": "...", "model": "..."}`; project properties use the string
 * `connection:model` (split at the first colon, so model names may contain colons); both are accepted when reading.
 */
export const MODEL_BACKENDS = ['openai-compatible', 'anthropic', 'cloud-ai'] as const;
export type ModelBackend = (typeof MODEL_BACKENDS)[number];
export const MODEL_CAPABILITIES = ['structured_output', 'tools'] as const;
export type ModelCapability = (typeof MODEL_CAPABILITIES)[number];
export const MAX_OUTPUT_TOKENS_LIMIT = 131_072;
/** Used when a connection does not say; the legacy connection always uses it. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
/** The name the legacy connection is shown under; it is not in `connections`, so policy cannot reach it. */
export const LEGACY_CONNECTION = 'legacy';
/** Connection names end up in `connection:model` strings, so they cannot hold a colon (or anything odd). */
const CONNECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

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

export interface LegacyModel {
  connection: ModelConnection;
  /** LLM_MODEL: host executions. */
  target: ModelTarget;
  /** CONTAINER_LLM_MODEL, else LLM_MODEL: container executions. */
  container_target: ModelTarget;
}

export interface ModelConfiguration {
  mode: 'connections' | 'legacy' | 'none';
  /** The named connections of MODEL_CONNECTIONS: everything project policy may name. */
  connections: Record<string, ModelConnection>;
  default?: ModelTarget;
  policy: Partial<Record<ModelPolicyKey, ModelTarget>>;
  /** LLM_BACKEND + LLM_MODEL: the whole configuration in legacy mode, the last fallback in connections mode. */
  legacy?: LegacyModel;
}

export interface ModelConfigurationResult {
  config?: ModelConfiguration;
  /** One line each; any problem means no configuration. */
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

/** Checks the provider's native credentials and the backend-specific fields of a connection. */
function backendProblems(connection: ModelConnection, env: NodeJS.ProcessEnv, where: string): string[] {
  const problems: string[] = [];
  switch (connection.backend) {
    case 'cloud-ai':
      if (!connection.project) problems.push(`${where}: backend cloud-ai needs "project"${connection.legacy ? ' (GOOGLE_VERTEX_PROJECT)' : ''}`);
      if (!connection.location) problems.push(`${where}: backend cloud-ai needs "location"${connection.legacy ? ' (GOOGLE_VERTEX_LOCATION)' : ''}`);
      if (!env.GOOGLE_APPLICATION_CREDENTIALS?.trim() && !env.GOOGLE_VERTEX_API_KEY?.trim()) {
        problems.push(`${where}: backend cloud-ai needs GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_VERTEX_API_KEY in the environment`);
      }
      break;
    case 'anthropic':
      if (!env.ANTHROPIC_API_KEY?.trim()) problems.push(`${where}: backend anthropic needs ANTHROPIC_API_KEY in the environment`);
      break;
    case 'openai-compatible':
      if (!connection.base_url && !env.OPENAI_BASE_URL?.trim()) {
        problems.push(`${where}: backend openai-compatible needs ${connection.legacy ? 'OPENAI_BASE_URL' : '"base_url" in the connection or OPENAI_BASE_URL'}`);
      }
      break;
  }
  return problems;
}

function parseConnection(name: string, raw: unknown, problems: string[]): ModelConnection | undefined {
  const where = `MODEL_CONNECTIONS.${name}`;
  if (!CONNECTION_NAME.test(name)) {
    problems.push(`${where}: a connection name may hold only letters, digits, "_", "." and "-" (it is written as <connection>:<model>)`);
    return undefined;
  }
  if (!isObject(raw)) {
    problems.push(`${where}: expected an object`);
    return undefined;
  }
  const before = problems.length;
  for (const field of Object.keys(raw)) {
    if (CONNECTION_FIELDS.has(field)) continue;
    if (CREDENTIAL_FIELD.test(field)) problems.push(`${where}.${field}: connections hold no credentials; the ${typeof raw.backend === 'string' ? raw.backend : 'provider'} backend reads its native environment variables`);
    else problems.push(`${where}.${field}: unknown field (known: ${[...CONNECTION_FIELDS].join(', ')})`);
  }
  const backend = raw.backend;
  if (typeof backend !== 'string' || !(MODEL_BACKENDS as readonly string[]).includes(backend)) {
    problems.push(`${where}.backend: expected one of ${MODEL_BACKENDS.join(', ')}, got ${JSON.stringify(backend)}`);
  }
  const models = raw.allowed_models;
  if (!Array.isArray(models) || models.length === 0 || !models.every((m) => typeof m === 'string' && m.trim() !== '' && m === m.trim())) {
    problems.push(`${where}.allowed_models: expected a non-empty array of model names`);
  }
  const capabilities = raw.capabilities ?? [];
  if (!Array.isArray(capabilities) || !capabilities.every((c) => (MODEL_CAPABILITIES as readonly unknown[]).includes(c))) {
    problems.push(`${where}.capabilities: expected an array of ${MODEL_CAPABILITIES.join(', ')}, got ${JSON.stringify(capabilities)}`);
  }
  const maxTokens = raw.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_OUTPUT_TOKENS_LIMIT) {
    problems.push(`${where}.max_output_tokens: expected a whole number from 1 to ${MAX_OUTPUT_TOKENS_LIMIT}, got ${JSON.stringify(maxTokens)}`);
  }
  for (const field of ['project', 'location', 'base_url'] as const) {
    if (raw[field] !== undefined && (typeof raw[field] !== 'string' || raw[field].trim() === '')) problems.push(`${where}.${field}: expected a non-empty string`);
  }
  if (typeof raw.base_url === 'string' && !/^https?:\/\/[^\s]+$/.test(raw.base_url)) problems.push(`${where}.base_url: expected an http(s) URL`);
  if (problems.length > before) return undefined;
  return {
    name,
    backend: backend as ModelBackend,
    project: raw.project as string | undefined,
    location: raw.location as string | undefined,
    base_url: raw.base_url as string | undefined,
    allowed_models: [...new Set(models as string[])],
    capabilities: [...new Set(capabilities as ModelCapability[])],
    max_output_tokens: maxTokens as number,
    legacy: false,
  };
}

/** `{connection, model}` (the deployment form) or `connection:model` (the project-property form). */
export function parseTarget(raw: unknown): ModelTarget | undefined {
  let connection: unknown;
  let model: unknown;
  if (typeof raw === 'string') {
    const colon = raw.indexOf(':');
    if (colon < 0) return undefined;
    connection = raw.slice(0, colon).trim();
    model = raw.slice(colon + 1).trim();
  } else if (isObject(raw)) {
    connection = typeof raw.connection === 'string' ? raw.connection.trim() : undefined;
    model = typeof raw.model === 'string' ? raw.model.trim() : undefined;
  }
  if (typeof connection !== 'string' || typeof model !== 'string' || !CONNECTION_NAME.test(connection) || model === '') return undefined;
  return { connection, model };
}

export function formatTarget(target: ModelTarget): string {
  return `${target.connection}:${target.model}`;
}

/** Why a target cannot serve a stage; the code lets callers pick the fix they suggest. */
export type TargetIssueCode = 'unknown_connection' | 'model_not_allowed' | 'missing_tools';
export interface TargetIssue {
  code: TargetIssueCode;
  message: string;
}

/** A target problem (unknown connection, model not allowed, missing capability), or undefined when usable. */
export function targetIssue(config: Pick<ModelConfiguration, 'connections'>, target: ModelTarget, key?: ModelPolicyKey): TargetIssue | undefined {
  const connection = config.connections[target.connection];
  if (!connection) return { code: 'unknown_connection', message: `connection "${target.connection}" is not defined (defined: ${Object.keys(config.connections).join(', ') || 'none'})` };
  return connectionIssue(connection, target.model, key);
}

/** Allowlist and capability rule for a model on a known connection. */
export function connectionIssue(connection: ModelConnection, model: string, key?: ModelPolicyKey): TargetIssue | undefined {
  if (!connection.allowed_models.includes(model)) {
    return { code: 'model_not_allowed', message: `model "${model}" is not allowed on connection "${connection.name}" (allowed: ${connection.allowed_models.join(', ')})` };
  }
  if (key && requiresTools(key) && !connection.capabilities.includes('tools')) {
    return { code: 'missing_tools', message: `stage ${key} needs a connection with the "tools" capability; "${connection.name}" has ${connection.capabilities.join(', ') || 'none'}` };
  }
  return undefined;
}

export function targetProblem(config: Pick<ModelConfiguration, 'connections'>, target: ModelTarget, key?: ModelPolicyKey): string | undefined {
  return targetIssue(config, target, key)?.message;
}

function parseLegacy(env: NodeJS.ProcessEnv, problems: string[]): LegacyModel | undefined {
  const text = (name: string) => env[name]?.trim() || undefined;
  const backend = text('LLM_BACKEND');
  const model = text('LLM_MODEL');
  const containerModel = text('CONTAINER_LLM_MODEL');
  const before = problems.length;
  if (!backend || !model) problems.push(`LLM_BACKEND and LLM_MODEL are required together (${backend ? 'LLM_MODEL' : 'LLM_BACKEND'} is missing)`);
  if (backend && !(MODEL_BACKENDS as readonly string[]).includes(backend)) problems.push(`LLM_BACKEND: expected one of ${MODEL_BACKENDS.join(', ')}, got "${backend}"`);
  if (problems.length > before) return undefined;
  const connection: ModelConnection = {
    name: LEGACY_CONNECTION,
    backend: backend as ModelBackend,
    // The legacy pair has no room for a project, a location or an address: the providers' own variables carry them.
    project: text('GOOGLE_VERTEX_PROJECT'),
    location: text('GOOGLE_VERTEX_LOCATION'),
    base_url: text('OPENAI_BASE_URL'),
    allowed_models: [...new Set([model!, ...(containerModel ? [containerModel] : [])])],
    capabilities: ['structured_output', 'tools'],
    max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
    legacy: true,
  };
  const credentialProblems = backendProblems(connection, env, `LLM_BACKEND=${backend}`);
  if (credentialProblems.length) {
    problems.push(...credentialProblems);
    return undefined;
  }
  return {
    connection,
    target: { connection: LEGACY_CONNECTION, model: model! },
    container_target: { connection: LEGACY_CONNECTION, model: containerModel ?? model! },
  };
}

function parseTargetVariable(name: string, raw: unknown, problems: string[]): ModelTarget | undefined {
  const target = isObject(raw) ? parseTarget(raw) : undefined;
  if (!target) problems.push(`${name}: expected {"connection": "...", "model": "..."}, got ${JSON.stringify(raw)}`);
  return target;
}

export function parseModelConfiguration(env: NodeJS.ProcessEnv = process.env): ModelConfigurationResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const text = (name: string) => env[name]?.trim() || undefined;
  const rawConnections = text('MODEL_CONNECTIONS');
  const rawDefault = text('MODEL_DEFAULT');
  const rawPolicy = text('MODEL_POLICY');
  const legacyGiven = Boolean(text('LLM_BACKEND') || text('LLM_MODEL'));

  if (!rawConnections) {
    if (rawDefault) problems.push('MODEL_DEFAULT is set but MODEL_CONNECTIONS is not: define the connection it names');
    if (rawPolicy) problems.push('MODEL_POLICY is set but MODEL_CONNECTIONS is not: define the connections it names');
    if (!legacyGiven) {
      if (text('CONTAINER_LLM_MODEL')) problems.push('CONTAINER_LLM_MODEL is set but LLM_BACKEND and LLM_MODEL are not');
      if (problems.length) return { problems, warnings };
      warnings.push('no model is configured (MODEL_CONNECTIONS + MODEL_DEFAULT, or LLM_BACKEND + LLM_MODEL): AI stages will fail closed');
      return { config: { mode: 'none', connections: {}, policy: {} }, problems, warnings };
    }
    const legacy = parseLegacy(env, problems);
    if (problems.length || !legacy) return { problems, warnings };
    return { config: { mode: 'legacy', connections: {}, policy: {}, legacy }, problems, warnings };
  }

  const connections: Record<string, ModelConnection> = {};
  const parsedConnections = parseJson('MODEL_CONNECTIONS', rawConnections, problems);
  let connectionsUsable = false;
  if (parsedConnections !== undefined) {
    if (!isObject(parsedConnections) || Object.keys(parsedConnections).length === 0) problems.push('MODEL_CONNECTIONS: expected a JSON object with at least one connection');
    else {
      const before = problems.length;
      for (const [name, raw] of Object.entries(parsedConnections)) {
        const connection = parseConnection(name, raw, problems);
        if (connection) {
          problems.push(...backendProblems(connection, env, `MODEL_CONNECTIONS.${name}`));
          connections[name] = connection;
        }
      }
      connectionsUsable = problems.length === before;
    }
  }
  // Targets are only checked against a connection list that parsed completely; otherwise every target naming a
  // broken connection would add a second, misleading line.
  const checkTarget = (where: string, target: ModelTarget, key?: ModelPolicyKey) => {
    if (!connectionsUsable && !connections[target.connection]) return;
    const problem = targetProblem({ connections }, target, key);
    if (problem) problems.push(`${where}: ${problem}`);
  };

  let defaultTarget: ModelTarget | undefined;
  if (rawDefault) {
    const parsed = parseJson('MODEL_DEFAULT', rawDefault, problems);
    if (parsed !== undefined) defaultTarget = parseTargetVariable('MODEL_DEFAULT', parsed, problems);
    if (defaultTarget) checkTarget('MODEL_DEFAULT', defaultTarget);
  }

  const policy: Partial<Record<ModelPolicyKey, ModelTarget>> = {};
  if (rawPolicy) {
    const parsed = parseJson('MODEL_POLICY', rawPolicy, problems);
    if (parsed !== undefined && !isObject(parsed)) problems.push('MODEL_POLICY: expected a JSON object of policy key to {"connection", "model"}');
    else if (parsed !== undefined) {
      for (const [key, raw] of Object.entries(parsed)) {
        if (!isModelPolicyKey(key)) {
          problems.push(`MODEL_POLICY.${key}: unknown policy key${key === '*' ? ' (there is no "*" key: use MODEL_DEFAULT)' : ''} (keys: ${MODEL_POLICY_KEYS.join(', ')})`);
          continue;
        }
        const target = parseTargetVariable(`MODEL_POLICY.${key}`, raw, problems);
        if (!target) continue;
        policy[key] = target;
        checkTarget(`MODEL_POLICY.${key}`, target, key);
      }
    }
  }

  let legacy: LegacyModel | undefined;
  if (!rawDefault) {
    // The legacy pair is the last step of the resolution order, so without MODEL_DEFAULT it is the default target.
    if (legacyGiven) legacy = parseLegacy(env, problems);
    else problems.push('MODEL_DEFAULT is required with MODEL_CONNECTIONS ({"connection": "...", "model": "..."}), unless LLM_BACKEND and LLM_MODEL provide the fallback');
  } else if (legacyGiven || text('CONTAINER_LLM_MODEL')) {
    warnings.push('LLM_BACKEND/LLM_MODEL/CONTAINER_LLM_MODEL are not used: MODEL_DEFAULT comes before them for every stage');
  }

  if (defaultTarget && !problems.length) {
    const connection = connections[defaultTarget.connection];
    const uncovered = MODEL_POLICY_KEYS.filter((key) => requiresTools(key) && !policy[key]);
    if (connection && !connection.capabilities.includes('tools') && uncovered.length) {
      problems.push(`MODEL_DEFAULT: connection "${connection.name}" lacks the "tools" capability, which ${uncovered.length} stages without a MODEL_POLICY entry need (e.g. ${uncovered.slice(0, 3).join(', ')})`);
    }
  }
  if (problems.length) return { problems, warnings };
  return { config: { mode: 'connections', connections, default: defaultTarget, policy, ...(legacy ? { legacy } : {}) }, problems, warnings };
}

/** One line for the startup log: which models this process will use, without anything secret (there is nothing). */
export function describeModelConfiguration(config: ModelConfiguration): string {
  if (config.mode === 'none') return 'models: none configured (AI stages fail closed)';
  const legacy = config.legacy ? `legacy ${config.legacy.connection.backend} ${config.legacy.target.model}${config.legacy.container_target.model !== config.legacy.target.model ? ` (container ${config.legacy.container_target.model})` : ''}` : undefined;
  if (config.mode === 'legacy') return `models: ${legacy}; project policy is not read`;
  const connections = Object.values(config.connections).map((c) => `${c.name} (${c.backend}: ${c.allowed_models.join(', ')})`).join('; ');
  const mapped = Object.keys(config.policy).length;
  return [
    `models: connections ${connections}`,
    `default ${config.default ? formatTarget(config.default) : `${legacy} (no MODEL_DEFAULT)`}`,
    `${mapped} stage mapping${mapped === 1 ? '' : 's'}`,
    'project policy is read before each execution',
  ].join('; ');
}
