import { createLogger, type Logger } from '../logging/logger';
import { loadRepositoryRegistry, RepositoryRegistryError } from './repository-registry';
import { parseModelConfiguration, type ModelConfiguration } from './model-configuration';
import { loadServiceConfig, type ServiceConfig } from './service-config';
import { loadMcpServers, McpServersError } from './mcp-servers';

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Loads the configuration for a long-running command. Problems are printed one per line and the command exits
 * non-zero before anything starts; warnings go to the log.
 */
export function startupConfig(env: NodeJS.ProcessEnv = process.env): { config: ServiceConfig; logger: Logger; models: ModelConfiguration } {
  const result = loadServiceConfig(env);
  const models = parseModelConfiguration(env);
  const problems = [...result.problems, ...models.problems];
  if (!result.config || !models.config) throw new ConfigurationError(problems.map((p) => `configuration error: ${p}`));
  try {
    // Loaded (and cached for the process) now so a broken registry file stops startup instead of a later request.
    loadRepositoryRegistry(env);
  } catch (error) {
    if (error instanceof RepositoryRegistryError) throw new ConfigurationError(error.message.split('\n').map((line) => `configuration error: ${line.trim().replace(/^- /, '')}`));
    throw error;
  }
  try {
    // The tool-server file too: a bad file stops the worker here, one line per problem.
    loadMcpServers(env);
  } catch (error) {
    if (error instanceof McpServersError) throw new ConfigurationError(error.problems.map((p) => `configuration error: ${error.source}: ${p}`));
    throw error;
  }
  const logger = createLogger({ level: result.config.logLevel });
  for (const warning of [...result.warnings, ...models.warnings]) logger.warn(warning);
  return { config: result.config, logger, models: models.config };
}

export function reportConfigurationError(error: unknown): number | undefined {
  if (error instanceof ConfigurationError) {
    for (const line of error.problems) process.stderr.write(`${line}\n`);
    return 1;
  }
  return undefined;
}
