import { connectionWebhookSecret, type RepositoryRegistry } from './repository-registry';
import type { ServiceConfig } from './service-config';
import { ConfigurationError } from './startup-config';

/**
 * Webhook secrets at gateway startup. The spec lets an empty secret disable a signature check "for local testing
 * only"; an unset variable must not do that silently in production, where it means anyone who can reach the gateway
 * can approve, command and start tickets. So an unset secret needs this explicit opt-in, and the gateway refuses to
 * start without it.
 */
export const ALLOW_UNSIGNED_WEBHOOKS_ENV = 'SERVICE_ALLOW_UNSIGNED_WEBHOOKS';

/**
 * Which webhook sources have no secret: the variable names, and for GitLab the registry connections (by the variable
 * their `webhook_secret_env` names, or by name when they name none).
 */
export function missingWebhookSecrets(config: Pick<ServiceConfig, 'tracker' | 'scmhost'>, registry: RepositoryRegistry | undefined, env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  if (!config.tracker.webhookSecret) missing.push('TRACKER_WEBHOOK_SECRET');
  if (!config.scmhost.webhookSecret) missing.push('SCMHOST_WEBHOOK_SECRET');
  for (const connection of registry?.connections.values() ?? []) {
    if (connectionWebhookSecret(connection, env)) continue;
    missing.push(connection.webhookSecretEnv ?? `webhook_secret_env of registry connection "${connection.name}"`);
  }
  return missing;
}

export type WebhookSecretsCheck = { ok: true; warning?: string } | { ok: false; problem: string };

/** One line either way: the refusal naming the variables, or (with the opt-in) the warning to log loudly. */
export function checkWebhookSecrets(config: Pick<ServiceConfig, 'tracker' | 'scmhost' | 'webhooks'>, registry: RepositoryRegistry | undefined, env: NodeJS.ProcessEnv): WebhookSecretsCheck {
  const missing = missingWebhookSecrets(config, registry, env);
  if (missing.length === 0) return { ok: true };
  const names = missing.join(', ');
  if (!config.webhooks.allowUnsigned) {
    return {
      ok: false,
      problem: `webhook secrets are not set: ${names}. The gateway does not accept unsigned webhooks: set them (also for a source you do not use: any long random value), or set ${ALLOW_UNSIGNED_WEBHOOKS_ENV}=true to accept unsigned deliveries, for local testing only`,
    };
  }
  return {
    ok: true,
    warning: `UNSIGNED WEBHOOKS ACCEPTED: ${ALLOW_UNSIGNED_WEBHOOKS_ENV}=true and ${names} ${missing.length === 1 ? 'is' : 'are'} not set, so those webhooks are taken without any check: anyone who can reach this gateway can start, approve and command tickets. Local testing only, never in production`,
  };
}

/**
 * The gateway's (and `service dev`'s) startup check: throws a ConfigurationError (printed as one line, exit 1) when
 * a secret is unset without the opt-in; returns the warning to log when the opt-in lets unsigned webhooks in.
 */
export function requireWebhookSecrets(config: Pick<ServiceConfig, 'tracker' | 'scmhost' | 'webhooks'>, registry: RepositoryRegistry | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const check = checkWebhookSecrets(config, registry, env);
  if (!check.ok) throw new ConfigurationError([`configuration error: ${check.problem}`]);
  return check.warning;
}
