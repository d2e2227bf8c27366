import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readSandboxSettings } from '../../src/sandbox/sandbox-settings';
import { freePort } from '../helpers/free-port';
import { startService, type ServiceProcess } from '../helpers/service-process';
import { eventually, getJson } from '../helpers/webhooks';

type Json = Record<string, any>;
const TOKEN = 'sandbox-act-as-token';

/**
 * Issue 43: a newcomer tries who may approve without editing project properties. `service dev --sandbox` with only
 * pat@example.com allowed: the PRD approval label added `--as sam@example.com` reaches the ticket as sam's and is
 * ignored with its reason, and pat's (no --as) moves the ticket on.
 */
describe('service sandbox ... --as against service dev --sandbox', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-sandbox-act-as-'));
  let dev: ServiceProcess | undefined;
  afterAll(async () => {
    if (dev) await dev.stop('SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  const sandbox = async (...args: string[]): Promise<string> => {
    const command = startService(['sandbox', ...args, '--data-dir', dataDir], {});
    const code = await command.exited;
    expect(code, command.output()).toBe(0);
    return command.stdout().trim();
  };

  it('ignores an approval by someone not allowed, and counts the allowed person\'s', async () => {
    const ports = { temporal: await freePort(), gateway: await freePort(), metrics: await freePort() };
    dev = startService(['dev', '--sandbox', '--headless', '--data-dir', dataDir, '--temporal-port', String(ports.temporal)], {
      TEMPORAL_CLI_PATH: inject('temporalCliPath'),
      SERVICE_OPERATOR_TOKEN: TOKEN,
      SERVICE_TASK_QUEUE: 'it-sandbox-act-as',
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      SERVICE_GATEWAY_PORT: String(ports.gateway),
      SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
      SERVICE_WORKER_METRICS_PORT: String(ports.metrics),
      SERVICE_ALLOWED_ACTORS: 'tracker-email:pat@example.com,github:octo-reviewer',
    });
    await dev.waitForOutput(/Press Ctrl-C to stop/, 180_000);
    const api = `http://127.0.0.1:${ports.gateway}`;
    const view = async (key: string) => (await getJson(`${api}/api/v1/workflows/${key}/execution`, TOKEN)).body as Json;
    const timeline = async (key: string): Promise<Json[]> => {
      const page = await getJson(`${api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN);
      return page.status === 200 ? page.body.entries as Json[] : [];
    };
    const tracker = async (path: string): Promise<Json> => {
      const settings = readSandboxSettings(join(dataDir, 'sandbox'))!;
      const response = await fetch(`${settings.urls.tracker}/rest/api/3${path}`, { headers: { authorization: `Basic ${Buffer.from('reader@example.com:x').toString('base64')}` } });
      return await response.json() as Json;
    };
    const comments = async (key: string) => ((await tracker(`/issue/${key}/comment?maxResults=100`)).comments as Json[]).map((c) => JSON.stringify(c.body));
    const labels = async (key: string) => (await tracker(`/issue/${key}?fields=labels`)).fields.labels as string[];

    const key = await sandbox('create-ticket', 'Export reports as CSV');
    await eventually(async () => ((await view(key))?.current_position === 'prd_approval_gate' ? true : undefined), 180_000, `${key} at the PRD gate`);

    expect(await sandbox('label', key, 'service:prd-approved', '--as', 'sam@example.com')).toBe(`${key}: added service:prd-approved`);
    const ignored = await eventually(async () => (await timeline(key)).find((e) => e.kind === 'command_decision' && e.status === 'ignored' && /approve by .* ignored/.test(e.summary)), 60_000, 'sam\'s approval ignored');
    expect(ignored.details.actor_ids).toContain('tracker-email:sam@example.com');
    expect(ignored.summary).toContain('is not listed in SERVICE_ALLOWED_ACTORS');
    await eventually(async () => ((await comments(key)).some((c) => c.includes('by tracker-email:sam@example.com was ignored')) ? true : undefined), 60_000, 'the reply about sam');
    expect((await view(key)).current_position).toBe('prd_approval_gate');

    // The service took the ignored label off; pat (allowed, no --as) adds it again and the ticket moves on.
    await eventually(async () => ((await labels(key)).includes('service:prd-approved') ? undefined : true), 60_000, 'the ignored label taken off');
    await sandbox('label', key, 'service:prd-approved');
    await eventually(async () => ((await view(key))?.current_position !== 'prd_approval_gate' ? true : undefined), 120_000, `${key} past the PRD gate`);
  }, 600_000);
});
