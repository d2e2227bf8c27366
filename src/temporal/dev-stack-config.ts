import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

const SEARCH_ATTRIBUTE_TYPES = ['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'] as const;
export type SearchAttributeTypeName = (typeof SEARCH_ATTRIBUTE_TYPES)[number];

const port = z.number().int().min(1).max(65535);

const devStackSchema = z.object({
  server: z.object({
    ip: z.string().min(1).default('127.0.0.1'),
    port: port.default(7233),
    ui_port: port.default(8233),
    data_dir: z.string().min(1).default('.data'),
    db_filename: z.string().min(1).default('temporal.db'),
    namespace: z.string().min(1).default('default'),
    log_level: z.enum(['debug', 'info', 'warn', 'error']).default('warn'),
  }).strict(),
  search_attributes: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'search attribute names are identifiers'), z.enum(SEARCH_ATTRIBUTE_TYPES)).default({}),
  /** `PRAGMA name=value` for every SQLite connection of the dev server (passed as --sqlite-pragma). */
  sqlite_pragmas: z.record(z.string().regex(/^[a-z_]+$/, 'SQLite pragma names are lower-case identifiers'), z.union([z.string().regex(/^[A-Za-z0-9_-]+$/, 'a pragma value is one word or number'), z.number()])).default({}),
  dynamic_config: z.record(z.string(), z.unknown()).default({}),
}).strict();

export type DevStackConfig = z.infer<typeof devStackSchema>;

export class DevStackConfigError extends Error {
  override readonly name = 'DevStackConfigError';
}

export function parseDevStackConfig(text: string, source = 'temporal-dev.yaml'): DevStackConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new DevStackConfigError(`${source}: not valid YAML: ${(error as Error).message}`);
  }
  const parsed = devStackSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new DevStackConfigError(lines.join('\n'));
  }
  return parsed.data;
}

/** A relative stack file is looked up in the current folder first, then in the project root (where ours ships). */
export function resolveStackFile(flag: string, root: string): string {
  if (isAbsolute(flag)) return flag;
  const here = join(process.cwd(), flag);
  return existsSync(here) ? here : join(root, flag);
}

export function loadDevStackConfig(path: string): DevStackConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DevStackConfigError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseDevStackConfig(text, path);
}

export interface DevStackOverrides {
  dataDir?: string;
  port?: number;
  uiPort?: number;
  headless?: boolean;
}

export interface DevServerPlan {
  args: string[];
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  dbPath: string;
  dataDir: string;
  searchAttributes: Record<string, SearchAttributeTypeName>;
}

/** Turns the dev stack file (plus command-line overrides) into the `temporal server start-dev` invocation. */
export function planDevServer(config: DevStackConfig, root: string, overrides: DevStackOverrides = {}): DevServerPlan {
  const server = config.server;
  const dataDir = overrides.dataDir ?? (isAbsolute(server.data_dir) ? server.data_dir : join(root, server.data_dir));
  const dbPath = isAbsolute(server.db_filename) ? server.db_filename : join(dataDir, server.db_filename);
  const grpcPort = overrides.port ?? server.port;
  const uiPort = overrides.uiPort ?? server.ui_port;
  const args = [
    'server', 'start-dev',
    '--ip', server.ip,
    '--port', String(grpcPort),
    '--db-filename', dbPath,
    '--log-level', server.log_level,
  ];
  if (overrides.headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (server.namespace !== 'default') args.push('--namespace', server.namespace);
  for (const [name, value] of Object.entries(config.sqlite_pragmas)) args.push('--sqlite-pragma', `${name}=${value}`);
  for (const [key, value] of Object.entries(config.dynamic_config)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return {
    args,
    address: `${server.ip}:${grpcPort}`,
    namespace: server.namespace,
    uiUrl: overrides.headless ? undefined : `http://${server.ip}:${uiPort}`,
    dbPath,
    dataDir,
    searchAttributes: config.search_attributes,
  };
}
