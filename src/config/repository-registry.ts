/**
 * The repository registry file (SPEC 2.9): explicit entries for repositories on hosts other than the default
 * source host, e.g. GitLab. Loaded from SERVICE_REPOS_CONFIG_PATH once per process and cached; there is no reload
 * (restart the gateway and workers after editing it). YAML or JSON. There is no implicit default: a repository the
 * file does not list is not served by these providers.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const REGISTRY_PROVIDERS = ['gitlab'] as const;
export type RegistryProvider = (typeof REGISTRY_PROVIDERS)[number];

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const connectionSchema = z.object({
  provider: z.enum(REGISTRY_PROVIDERS),
  base_url: z.string().url('must be an absolute http(s) URL').refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL'),
  credential_env: envName,
  webhook_secret_env: envName.optional(),
}).strict();

const repositorySchema = z.object({
  provider: z.enum(REGISTRY_PROVIDERS),
  connection: z.string().min(1),
  namespace: z.string().regex(/^[^/\s]+(\/[^/\s]+)+$/, 'must be a group/project path'),
  default_branch: z.string().min(1).default('main'),
  change_request_mode: z.enum(['direct', 'fork']).default('direct'),
}).strict();

const registrySchema = z.object({
  connections: z.record(z.string(), connectionSchema).default({}),
  repositories: z.record(z.string(), repositorySchema).default({}),
}).strict();

export interface RegistryConnection {
  name: string;
  provider: RegistryProvider;
  /** As written in the file. */
  baseUrl: string;
  /** The REST API v4 root: base_url with `/api/v4` appended unless it already ends with it. */
  apiBaseUrl: string;
  credentialEnv: string;
  webhookSecretEnv?: string;
}

export interface RegistryRepository {
  name: string;
  provider: RegistryProvider;
  connection: RegistryConnection;
  namespace: string;
  defaultBranch: string;
  changeRequestMode: 'direct' | 'fork';
}

export interface RepositoryRegistry {
  source: string;
  connections: Map<string, RegistryConnection>;
  repositories: Map<string, RegistryRepository>;
}

export class RepositoryRegistryError extends Error {
  constructor(source: string, problems: string[]) {
    super(`Invalid repository registry ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'RepositoryRegistryError';
  }
}

/** `https://host/prefix` -> `https://host/prefix/api/v4`; URLs already ending in /api/v4 are kept. */
export function apiV4BaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return /\/api\/v4$/i.test(trimmed) ? trimmed : `${trimmed}/api/v4`;
}

export function parseRepositoryRegistry(text: string, source = 'registry'): RepositoryRegistry {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new RepositoryRegistryError(source, [`not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const parsed = registrySchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new RepositoryRegistryError(source, parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  const connections = new Map<string, RegistryConnection>();
  for (const [name, c] of Object.entries(parsed.data.connections)) {
    connections.set(name, {
      name,
      provider: c.provider,
      baseUrl: c.base_url,
      apiBaseUrl: apiV4BaseUrl(c.base_url),
      credentialEnv: c.credential_env,
      webhookSecretEnv: c.webhook_secret_env,
    });
  }
  const problems: string[] = [];
  const repositories = new Map<string, RegistryRepository>();
  for (const [name, r] of Object.entries(parsed.data.repositories)) {
    const connection = connections.get(r.connection);
    if (!connection) {
      problems.push(`repositories.${name}.connection: unknown connection "${r.connection}" (known: ${[...connections.keys()].join(', ') || 'none'})`);
      continue;
    }
    if (connection.provider !== r.provider) {
      problems.push(`repositories.${name}.provider: "${r.provider}" but connection "${r.connection}" is "${connection.provider}"`);
      continue;
    }
    repositories.set(name, { name, provider: r.provider, connection, namespace: r.namespace, defaultBranch: r.default_branch, changeRequestMode: r.change_request_mode });
  }
  if (problems.length) throw new RepositoryRegistryError(source, problems);
  return { source, connections, repositories };
}

let cached: { path: string; registry: RepositoryRegistry } | undefined;

/**
 * The registry named by SERVICE_REPOS_CONFIG_PATH, read once per process; undefined when the variable is unset.
 * A missing or invalid file is an error at first use (startup), never silently ignored.
 */
export function loadRepositoryRegistry(env: NodeJS.ProcessEnv = process.env): RepositoryRegistry | undefined {
  const path = env.SERVICE_REPOS_CONFIG_PATH?.trim();
  if (!path) return undefined;
  if (cached?.path === path) return cached.registry;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RepositoryRegistryError(path, [`cannot read file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  const registry = parseRepositoryRegistry(text, path);
  cached = { path, registry };
  return registry;
}

/** For tests only: forget the cached registry. */
export function resetRepositoryRegistryCache(): void {
  cached = undefined;
}

/** The explicit entry for a repository, by entry name or namespace; undefined when not listed (no implicit default). */
export function findRegistryRepository(registry: RepositoryRegistry | undefined, nameOrNamespace: string): RegistryRepository | undefined {
  if (!registry) return undefined;
  return registry.repositories.get(nameOrNamespace) ??
    [...registry.repositories.values()].find((r) => r.namespace.toLowerCase() === nameOrNamespace.toLowerCase());
}

/** The credential of a connection, from the env var it names; throws naming the variable when unset. */
export function connectionCredential(connection: RegistryConnection, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[connection.credentialEnv]?.trim();
  if (!value) throw new Error(`Connection "${connection.name}" needs a credential: set ${connection.credentialEnv}`);
  return value;
}

/** The webhook secret of a connection; undefined when the connection names none or the variable is empty. */
export function connectionWebhookSecret(connection: RegistryConnection, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return connection.webhookSecretEnv ? env[connection.webhookSecretEnv]?.trim() || undefined : undefined;
}
