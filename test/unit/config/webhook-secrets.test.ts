import { describe, expect, it } from 'vitest';
import { parseRepositoryRegistry } from '../../../src/config/repository-registry';
import { loadServiceConfig } from '../../../src/config/service-config';
import { ConfigurationError } from '../../../src/config/startup-config';
import { checkWebhookSecrets, missingWebhookSecrets, requireWebhookSecrets } from '../../../src/config/webhook-secrets';

const registry = parseRepositoryRegistry([
  'connections:',
  '  signed: { provider: gitlab, base_url: https://gitlab.example.com, credential_env: GL_TOKEN, webhook_secret_env: GL_HOOK_SECRET }',
  '  unsigned: { provider: gitlab, base_url: https://gitlab.other.example, credential_env: GL2_TOKEN }',
].join('\n'));

const config = (env: NodeJS.ProcessEnv) => loadServiceConfig(env).config!;
const BOTH = { TRACKER_WEBHOOK_SECRET: 't-secret', SCMHOST_WEBHOOK_SECRET: 's-secret' };

describe('webhook secrets at gateway startup', () => {
  it('names every source without a secret, GitLab connections by their variable or by name', () => {
    expect(missingWebhookSecrets(config({}), undefined, {})).toEqual(['TRACKER_WEBHOOK_SECRET', 'SCMHOST_WEBHOOK_SECRET']);
    expect(missingWebhookSecrets(config(BOTH), registry, {})).toEqual(['GL_HOOK_SECRET', 'webhook_secret_env of registry connection "unsigned"']);
    expect(missingWebhookSecrets(config(BOTH), undefined, {})).toEqual([]);
  });

  it('refuses to start without them in one line naming the variables and the opt-in', () => {
    const check = checkWebhookSecrets(config({ TRACKER_WEBHOOK_SECRET: 't' }), undefined, {});
    expect(check).toEqual({
      ok: false,
      problem: 'webhook secrets are not set: SCMHOST_WEBHOOK_SECRET. The gateway does not accept unsigned webhooks: set them (also for a source you do not use: any long random value), or set SERVICE_ALLOW_UNSIGNED_WEBHOOKS=true to accept unsigned deliveries, for local testing only',
    });
    expect(() => requireWebhookSecrets(config({}), undefined, {})).toThrow(ConfigurationError);
    try {
      requireWebhookSecrets(config({}), undefined, {});
    } catch (error) {
      expect((error as ConfigurationError).problems).toHaveLength(1);
      expect((error as ConfigurationError).problems[0]).toMatch(/^configuration error: webhook secrets are not set: TRACKER_WEBHOOK_SECRET, SCMHOST_WEBHOOK_SECRET\./);
    }
  });

  it('starts with the explicit opt-in, with a loud warning; with every secret set, silently', () => {
    const optIn = config({ SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true' });
    expect(optIn.webhooks.allowUnsigned).toBe(true);
    expect(requireWebhookSecrets(optIn, undefined, {})).toMatch(/^UNSIGNED WEBHOOKS ACCEPTED: SERVICE_ALLOW_UNSIGNED_WEBHOOKS=true and TRACKER_WEBHOOK_SECRET, SCMHOST_WEBHOOK_SECRET are not set/);
    expect(requireWebhookSecrets(config({ ...BOTH, SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true' }), registry, { GL_HOOK_SECRET: 'g' })).toMatch(/webhook_secret_env of registry connection "unsigned" is not set/);
    expect(() => requireWebhookSecrets(config(BOTH), registry, { GL_HOOK_SECRET: 'g' })).toThrow(/registry connection "unsigned"/);
    expect(requireWebhookSecrets(config(BOTH), undefined, {})).toBeUndefined();
  });

  it('reads the opt-in as a boolean and refuses anything else', () => {
    expect(config({}).webhooks.allowUnsigned).toBe(false);
    expect(loadServiceConfig({ SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'sure' }).problems).toEqual(['SERVICE_ALLOW_UNSIGNED_WEBHOOKS: expected true or false, got "sure"']);
  });
});
