import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatewayApp } from '../../../src/gateway/app';
import { authenticatedConnections } from '../../../src/gateway/routes/gitlab-webhook';
import { signHmacSha256 } from '../../../src/gateway/webhook-signature';
import { listen, type ListeningServer } from '../../../src/http/listen';
import { parseRepositoryRegistry } from '../../../src/config/repository-registry';
import { loadServiceConfig } from '../../../src/config/service-config';
import { ConfigurationError } from '../../../src/config/startup-config';
import { createLogger } from '../../../src/logging/logger';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import type { TicketWorkflowsPort } from '../../../src/temporal/ticket-workflows';
import type { Observation } from '../../../workflows/ledger/observation';
import { fixture } from '../../helpers/fixtures';

// Every route authenticates before it reads a body. Proof without timing: the request declares a 24 MB body and
// never sends it; an answer can only come from the headers.

type Json = Record<string, any>;
const TRACKER_SECRET = 'unit-tracker-secret';
const SCMHOST_SECRET = 'unit-scmhost-secret';
const HUGE = String(24 * 1024 * 1024);

const registry = parseRepositoryRegistry([
  'connections:',
  '  main: { provider: gitlab, base_url: https://gitlab.example.com, credential_env: GL_MAIN_TOKEN, webhook_secret_env: GL_MAIN_HOOK }',
  '  other: { provider: gitlab, base_url: https://gitlab.other.example, credential_env: GL_OTHER_TOKEN, webhook_secret_env: GL_OTHER_HOOK }',
  'repositories:',
  '  api: { provider: gitlab, connection: main, namespace: acme/platform/api }',
  '  web: { provider: gitlab, connection: other, namespace: acme/platform/web }',
].join('\n'));

let server: ListeningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

async function gateway(env: NodeJS.ProcessEnv = { TRACKER_WEBHOOK_SECRET: TRACKER_SECRET, SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET, SERVICE_OPERATOR_TOKEN: 'op-token', EFFECT_OPERATOR_TOKEN: 'fx-token' }) {
  vi.stubEnv('GL_MAIN_HOOK', 'main-hook-secret');
  vi.stubEnv('GL_OTHER_HOOK', 'other-hook-secret');
  const signalled: Observation[] = [];
  const workflows = {
    startOrSignal: async (_input: unknown, observation: Observation) => { signalled.push(observation); return { workflowId: `ticket-${observation.ticket_key}` }; },
    signal: async (_key: string, observation: Observation) => { signalled.push(observation); return 'signalled' as const; },
    findTicketByPullRequest: async () => undefined,
  } as unknown as TicketWorkflowsPort;
  const app = createGatewayApp({ config: loadServiceConfig(env).config!, workflows, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }), registry });
  server = await listen((await import('node:http')).createServer(app), '127.0.0.1', 0, 'test gateway');
  return { url: server.url, signalled };
}

/** POSTs with the given headers; `body: 'withheld'` declares a 24 MB body and never sends a byte of it. */
function post(url: string, headers: Record<string, string>, body: string | 'withheld'): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, ...(body === 'withheld' ? { 'content-length': HUGE } : {}) } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => {
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) as Json : {} });
        req.destroy();
      });
    });
    req.on('error', reject);
    if (body === 'withheld') req.flushHeaders();
    else req.end(body);
  });
}

describe('webhooks are authenticated from their headers before any of the body is read', () => {
  it('tracker and source host: a missing or malformed signature is 401, a well-formed one over a too-large body is 413', async () => {
    const { url } = await gateway();
    const forged = `sha256=${'0'.repeat(64)}`;
    for (const [path, header] of [['/api/v1/webhooks/tracker', 'x-hub-signature'], ['/api/v1/webhooks/scmhost', 'x-hub-signature-256']] as const) {
      expect(await post(`${url}${path}`, { 'x-github-event': 'pull_request' }, 'withheld')).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature', message: expect.stringContaining('signature header is missing') } } });
      expect(await post(`${url}${path}`, { [header]: 'sha1=abc' }, 'withheld')).toMatchObject({ status: 401, body: { error: { code: 'invalid_signature' } } });
      expect(await post(`${url}${path}`, { [header]: forged }, 'withheld')).toMatchObject({ status: 413, body: { error: { code: 'body_too_large' } } });
    }
  });

  it('GitLab: a token that is the secret of no registry connection is 401 from the headers', async () => {
    const { url } = await gateway();
    const path = `${url}/api/v1/webhooks/gitlab`;
    expect(await post(path, {}, 'withheld')).toMatchObject({ status: 401, body: { error: { code: 'invalid_token', message: expect.stringContaining('missing') } } });
    expect(await post(path, { 'x-sourcehost-token': 'guess' }, 'withheld')).toMatchObject({ status: 401, body: { error: { code: 'invalid_token' } } });
    expect(await post(path, { 'x-gitlab-token': 'main-hook-secret' }, 'withheld')).toMatchObject({ status: 413 });
  });

  it('GitLab: after parsing, the repository\'s own connection must be the one whose secret the token is', async () => {
    const { url, signalled } = await gateway();
    const path = `${url}/api/v1/webhooks/gitlab`;
    const note = fixture<Json>('gitlab/note-on-merge-request.json');
    expect(await post(path, { 'x-sourcehost-token': 'other-hook-secret' }, JSON.stringify(note))).toMatchObject({
      status: 401, body: { error: { code: 'invalid_token', message: 'X-Sourcehost-Token does not match the secret of connection main, which serves acme/platform/api' } },
    });
    expect(signalled).toHaveLength(0);
    expect(await post(path, { 'x-sourcehost-token': 'main-hook-secret' }, JSON.stringify(note))).toMatchObject({ status: 202, body: { status: 'queued', ticket_key: 'GLB-1' } });
    expect(signalled).toHaveLength(1);
    const elsewhere = { ...note, project: { ...note.project, path_with_namespace: 'someone/else' } };
    expect(await post(path, { 'x-sourcehost-token': 'main-hook-secret' }, JSON.stringify(elsewhere))).toMatchObject({ status: 404, body: { error: { code: 'unknown_repository' } } });
  });

  it('an authenticated body that nests too deeply is refused without handing it to JSON.parse', async () => {
    const { url } = await gateway();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const started = performance.now();
    const answer = await post(`${url}/api/v1/webhooks/tracker`, { 'x-hub-signature': signHmacSha256(deep, TRACKER_SECRET) }, deep);
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_json', message: expect.stringContaining('nests deeper than 128 levels') } } });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('operator routes check the bearer token before reading a body', async () => {
    const { url } = await gateway();
    expect(await post(`${url}/api/v1/workflows/A-1/migration`, {}, 'withheld')).toMatchObject({ status: 401 });
    expect(await post(`${url}/api/v1/effects/k/replay`, { authorization: 'Bearer op-token' }, 'withheld')).toMatchObject({ status: 401 });
    const { url: disabled } = await (async () => { await server?.close(); return gateway({ TRACKER_WEBHOOK_SECRET: TRACKER_SECRET, SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET }); })();
    expect(await post(`${disabled}/api/v1/workflows/A-1/migration`, { authorization: 'Bearer x' }, 'withheld')).toMatchObject({ status: 503 });
  });
});

describe('a gateway without webhook secrets', () => {
  it('is refused unless unsigned webhooks are explicitly allowed', () => {
    const build = (env: NodeJS.ProcessEnv) => createGatewayApp({ config: loadServiceConfig(env).config!, workflows: {} as TicketWorkflowsPort, metrics: createServiceMetrics(), logger: createLogger({ level: 'error', write: () => undefined }) });
    expect(() => build({ TRACKER_WEBHOOK_SECRET: TRACKER_SECRET })).toThrow(ConfigurationError);
    expect(() => build({ TRACKER_WEBHOOK_SECRET: TRACKER_SECRET })).toThrow(/SCMHOST_WEBHOOK_SECRET/);
    expect(() => build({ SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true' })).not.toThrow();
  });

  it('with the opt-in takes unsigned deliveries where no secret is set, and still checks where one is', async () => {
    const { url, signalled } = await gateway({ SERVICE_ALLOW_UNSIGNED_WEBHOOKS: 'true', SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET });
    const created = fixture<Json>('tracker/jira-issue-created.json');
    expect(await post(`${url}/api/v1/webhooks/tracker`, {}, JSON.stringify(created))).toMatchObject({ status: 200 });
    expect(signalled).toHaveLength(1);
    expect(await post(`${url}/api/v1/webhooks/scmhost`, { 'x-github-event': 'pull_request' }, '{}')).toMatchObject({ status: 401 });
  });
});

describe('authenticatedConnections', () => {
  it('compares the token with every connection secret; connections without one count only with the opt-in', () => {
    const env = { GL_MAIN_HOOK: 'main-hook-secret' };
    expect(authenticatedConnections(registry, 'main-hook-secret', env, false)).toEqual(['main']);
    expect(authenticatedConnections(registry, 'other-hook-secret', env, false)).toEqual([]);
    expect(authenticatedConnections(registry, undefined, env, true)).toEqual(['other']);
    expect(authenticatedConnections(undefined, 'main-hook-secret', env, true)).toEqual([]);
  });
});
