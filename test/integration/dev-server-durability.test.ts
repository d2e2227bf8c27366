import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDevServer, type RunningDevServer } from '../../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer, type DevServerPlan } from '../../src/temporal/dev-stack-config';
import { freePort } from '../helpers/free-port';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const SECRET = 'durability-secret';
const TOKEN = 'durability-operator-token';
const root = join(__dirname, '..', '..');

function issue(key: string) {
  return { id: '71001', key, fields: { summary: `Durable ${key}`, labels: ['service:managed'], issuetype: { name: 'Feature' }, project: { key: 'DUR' }, created: '2026-11-25T07:00:00.000+0000', updated: '2026-11-25T07:00:00.000+0000' } };
}

/**
 * Issue 12, item 1: the dev server `service dev` starts (temporal-dev.yaml: SQLite in WAL mode, synchronous=NORMAL)
 * keeps what it acknowledged when it is interrupted or killed outright, and the ticket goes on after a restart on the
 * same file.
 */
describe('the embedded dev server, killed and restarted on the same SQLite file', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-durability-'));
  let world: World;
  let plan: DevServerPlan;
  let server: RunningDevServer;
  let stack: ServiceStack;

  beforeAll(async () => {
    const config = parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8'));
    plan = planDevServer(config, root, { dataDir, port: await freePort(), headless: true });
    server = await startDevServer(inject('temporalCliPath'), plan, { timeoutMs: 90_000 });
    world = await startWorld({
      name: 'durability', temporalAddress: plan.address, operatorToken: TOKEN, env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ stack } = world);
  }, 180_000);

  afterAll(async () => {
    await world?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const received = async (key: string, count: number) => eventually(async () => {
    const view = await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN);
    return view.status === 200 && (view.body.observations_received as number) >= count ? view.body : undefined;
  }, 90_000, `${count} observations on ${key}`);

  const comment = (key: string, id: number) => postWebhook(`${stack.api}/api/v1/webhooks/tracker`, {
    webhookEvent: 'comment_created', issue: issue(key),
    comment: { id: String(id), body: `comment ${id}`, author: { emailAddress: 'person@example.com' }, created: '2026-11-25T07:10:00.000+0000', updated: '2026-11-25T07:10:00.000+0000' },
  }, { secret: SECRET });

  async function restartAfter(signal: NodeJS.Signals): Promise<void> {
    const exited = new Promise((resolve) => server.process.once('exit', resolve));
    server.process.kill(signal);
    await exited;
    server = await startDevServer(inject('temporalCliPath'), plan, { timeoutMs: 90_000 });
  }

  it('runs SQLite in WAL mode on the file', () => {
    expect(plan.args).toEqual(expect.arrayContaining(['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal']));
    expect(existsSync(`${plan.dbPath}-wal`)).toBe(true);
  });

  it('keeps an acknowledged ticket through SIGKILL and SIGINT of the server, and the ticket goes on', async () => {
    const key = 'DUR-1';
    expect((await postWebhook(`${stack.api}/api/v1/webhooks/tracker`, { webhookEvent: 'jira:issue_created', timestamp: Date.now(), issue: issue(key) }, { secret: SECRET })).status).toBe(200);
    // Acknowledged and, at once, the server is killed: nothing may be lost that the gateway answered 200 for.
    expect((await comment(key, 1)).status).toBe(200);
    await restartAfter('SIGKILL');
    const afterKill = await received(key, 2);
    expect(afterKill).toMatchObject({ ticket_key: key });
    expect((await comment(key, 2)).status).toBe(200);
    await received(key, 3);

    await restartAfter('SIGINT');
    expect((await comment(key, 3)).status).toBe(200);
    const afterInterrupt = await received(key, 4);
    expect(afterInterrupt.observations_received).toBe(4);
  }, 300_000);
});
