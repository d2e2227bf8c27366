import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALLOW_UNSIGNED_WEBHOOKS_ENV } from './webhook-secrets';

/**
 * `service dev` on a fresh clone must start (README, "The two commands"), and the gateway accepts no unsigned
 * webhook without an explicit opt-in. So where the user set neither the tracker's nor the source host's webhook
 * secret, `service dev` makes one up, keeps it in its data folder (mode 0600, so a restart keeps it and the webhook
 * settings copied from the banner keep working) and prints it. Secrets the user set always win; the production
 * commands (`service gateway`) never make any up.
 */
export const DEV_WEBHOOK_SECRETS_FILE = 'webhook-secrets.json';
const VARIABLES = ['TRACKER_WEBHOOK_SECRET', 'SCMHOST_WEBHOOK_SECRET'] as const;

/** Fills the unset secrets of `env` from the data folder's file, making up what it lacks; returns the names filled. */
export function fillDevWebhookSecrets(dataDir: string, env: NodeJS.ProcessEnv): string[] {
  if ((env[ALLOW_UNSIGNED_WEBHOOKS_ENV] ?? '').trim().toLowerCase() === 'true') return [];
  const unset = VARIABLES.filter((name) => (env[name] ?? '').trim() === '');
  if (unset.length === 0) return [];
  const path = join(dataDir, DEV_WEBHOOK_SECRETS_FILE);
  let kept: Record<string, string> = {};
  try {
    kept = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch { /* none yet */ }
  let changed = false;
  for (const name of unset) {
    if (typeof kept[name] !== 'string' || kept[name].length < 16) {
      kept[name] = randomBytes(24).toString('hex');
      changed = true;
    }
    env[name] = kept[name];
  }
  if (changed) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return unset;
}
