import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withIdempotencyMarker } from '../../src/providers/scmhost/idempotency-marker';
import { fixture } from '../helpers/fixtures';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson, postWebhook } from '../helpers/webhooks';

const TRACKER_SECRET = 'ingress-tracker-secret';
const SCMHOST_SECRET = 'ingress-scmhost-secret';
const GITLAB_SECRET = 'ingress-gitlab-token';
const TOKEN = 'ingress-operator-token';

type Json = Record<string, any>;

describe('ingress from every webhook source into the ledger', () => {
  const dir = mkdtempSync(join(tmpdir(), 'service-ingress-'));
  let world: World;
  let stack: ServiceStack;

  beforeAll(async () => {
    const registry = join(dir, 'repos.yaml');
    writeFileSync(registry, [
      'connections:',
      '  gitlab-main:',
      '    provider: gitlab',
      '    base_url: https://gitlab.example.com',
      '    credential_env: GITLAB_TOKEN',
      '    webhook_secret_env: GITLAB_HOOK_SECRET',
      'repositories:',
      '  platform-api:',
      '    provider: gitlab',
      '    connection: gitlab-main',
      '    namespace: acme/platform/api',
      '    default_branch: main',
      '    change_request_mode: direct',
      '',
    ].join('\n'));
    world = await startWorld({
      name: 'ingress',
      operatorToken: TOKEN,
      env: {
        TRACKER_WEBHOOK_SECRET: TRACKER_SECRET,
        SCMHOST_WEBHOOK_SECRET: SCMHOST_SECRET,
        SERVICE_REPOS_CONFIG_PATH: registry,
        GITLAB_TOKEN: 'glpat-not-used-in-these-tests',
        GITLAB_HOOK_SECRET: GITLAB_SECRET,
        SERVICE_BOT_COMMENT_PREFIX: '[svc-bot]',
      },
    });
    ({ stack } = world);
  });

  afterAll(async () => {
    expect(await stack.stop()).toEqual([0, 0]);
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tracker = (payload: unknown) => postWebhook(`${stack.api}/api/v1/webhooks/tracker`, payload, { secret: TRACKER_SECRET });
  const scmhost = (event: string | undefined, payload: unknown, options: { secret?: string; header?: string } = {}) =>
    postWebhook(`${stack.api}/api/v1/webhooks/scmhost`, payload, {
      secret: options.secret ?? SCMHOST_SECRET,
      signatureHeader: 'x-hub-signature-256',
      headers: event ? { [options.header ?? 'x-github-event']: event, 'x-github-delivery': crypto.randomUUID() } : {},
    });
  const gitlab = (payload: unknown, token: string | null = GITLAB_SECRET) =>
    postWebhook(`${stack.api}/api/v1/webhooks/gitlab`, payload, { headers: { 'x-gitlab-event': 'Note Hook', ...(token ? { 'x-sourcehost-token': token } : {}) } });

  async function startTicket(key: string) {
    const payload = fixture<Json>('tracker/jira-issue-created.json');
    payload.issue.key = key;
    payload.issue.id = `7${key.replace(/\D/g, '')}`;
    expect((await tracker(payload)).status).toBe(200);
  }

  async function decisions(key: string, atLeast: number): Promise<Json[]> {
    return eventually(async () => {
      const page = await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN);
      const found = page.status === 200 ? (page.body.entries as Json[]).filter((e) => e.kind === 'observation_decision') : [];
      return found.length >= atLeast ? found : undefined;
    }, 30_000, `${atLeast} decisions on ${key}`);
  }

  function pullRequest(key: string, options: { title?: string; branch?: string; number?: number } = {}): Json {
    const payload = fixture<Json>('scmhost/pull-request-opened.json');
    payload.pull_request.title = options.title ?? `[${key}] ${payload.pull_request.title}`;
    payload.pull_request.head.ref = options.branch ?? payload.pull_request.head.ref;
    payload.pull_request.number = options.number ?? payload.pull_request.number;
    payload.number = payload.pull_request.number;
    payload.repository.full_name = 'acme/api';
    return payload;
  }

  it('requires the event header and a valid X-Hub-Signature-256 on source-host webhooks', async () => {
    expect(await scmhost(undefined, pullRequest('ING-1'))).toMatchObject({ status: 400, body: { error: { code: 'missing_event' } } });
    expect((await scmhost('pull_request', pullRequest('ING-1'), { secret: 'wrong' })).status).toBe(401);
    expect(await scmhost('deployment', {})).toMatchObject({ status: 200, body: { ignored: 'event "deployment" is not used by the service' } });
  });

  it('routes by title and calls a redelivered webhook a duplicate', async () => {
    await startTicket('ING-1');
    const payload = pullRequest('ING-1', { number: 41 });
    const first = await scmhost('pull_request', payload, { header: 'x-scmhost-event' });
    expect(first).toMatchObject({ status: 200, body: { status: 'queued', ticket_key: 'ING-1', routed_by: 'title' } });
    expect((await scmhost('pull_request', payload)).status).toBe(200);
    const found = await decisions('ING-1', 3);
    expect(found.map((e) => [e.details.source_system, e.status])).toEqual([['tracker', 'accepted'], ['scmhost', 'accepted'], ['scmhost', 'duplicate']]);
    expect(found[2]!.details).toMatchObject({ event_status: 'duplicate', reason: expect.stringContaining('already accepted') });
  });

  it('routes by the service branch, then by the PR index the workflow keeps', async () => {
    await startTicket('ING-2');
    const byBranch = await scmhost('pull_request', pullRequest('ING-2', { title: 'No key in this title', branch: 'service/ing-2', number: 52 }));
    expect(byBranch.body).toMatchObject({ status: 'queued', ticket_key: 'ING-2', routed_by: 'branch' });

    const comment = fixture<Json>('scmhost/issue-comment-created.json');
    comment.issue.number = 52;
    comment.issue.title = 'No key in this title';
    comment.issue.pull_request = { url: 'https://api.github.com/repos/acme/api/pulls/52' };
    comment.repository.full_name = 'acme/api';
    comment.comment.body = '/service skip-gate lint';
    const byIndex = await eventually(async () => {
      const response = await scmhost('issue_comment', comment);
      return response.body.routed_by === 'index' ? response : undefined;
    }, 30_000, 'routing through the PR index');
    expect(byIndex.body).toMatchObject({ status: 'queued', ticket_key: 'ING-2' });
  });

  it('answers an unroutable delivery with 200, counts it and signals nothing', async () => {
    const orphan = pullRequest('X', { title: 'Unrelated change', branch: 'feature/x', number: 999 });
    expect(await scmhost('pull_request', orphan)).toMatchObject({ status: 200, body: { ignored: expect.stringContaining('no ticket found') } });
    const metrics = await (await fetch(`${stack.api}/metrics`)).text();
    expect(metrics).toMatch(/service_webhooks_ignored_total\{source="scmhost",reason="unroutable"\} [1-9]/);
  });

  it('drops the service\'s own comments at the gateway', async () => {
    const comment = fixture<Json>('scmhost/issue-comment-created.json');
    comment.issue.title = '[ING-1] x';
    comment.issue.pull_request = { url: 'https://api.github.com/repos/acme/api/pulls/41' };
    comment.comment.body = withIdempotencyMarker('CI fix pushed', 'ING-1:run:ci:comment:1');
    expect((await scmhost('issue_comment', comment)).body).toEqual({ ignored: 'comment written by the service (idempotency marker)' });
    const jira = fixture<Json>('tracker/jira-comment-created.json');
    jira.issue.key = 'ING-1';
    jira.comment.body = '[svc-bot] PRD posted';
    expect((await tracker(jira)).body).toMatchObject({ ignored: 'comment written by the service (bot comment prefix)' });
    expect(await (await fetch(`${stack.api}/metrics`)).text()).toMatch(/service_webhooks_ignored_total\{source="tracker",reason="own_comment"\} [1-9]/);
  });

  it('calls an older tracker revision stale and a conflicting redelivery a conflict', async () => {
    await startTicket('ING-3');
    const change = (id: string, from: string, to: string) => {
      const payload = fixture<Json>('tracker/jira-issue-updated-labels.json');
      payload.issue.key = 'ING-3';
      payload.changelog.id = id;
      Object.assign(payload.changelog.items[0], { fromString: from, toString: to });
      return payload;
    };
    // Changelog 300 removed the approval that the late changelog 299 added: 299 is superseded on every field it touched.
    expect((await tracker(change('300', 'service:managed service:prd-approved', 'service:managed'))).status).toBe(200);
    expect((await tracker(change('299', 'service:managed', 'service:managed service:prd-approved'))).status).toBe(200);

    const review = fixture<Json>('scmhost/pull-request-review-submitted.json');
    review.pull_request.title = '[ING-3] x';
    review.repository.full_name = 'acme/api';
    expect((await scmhost('pull_request_review', review)).status).toBe(200);
    review.review.body = 'a different body under the same review id and state';
    expect((await scmhost('pull_request_review', review)).status).toBe(200);

    const found = await decisions('ING-3', 5);
    expect(found.map((e) => e.status)).toEqual(['accepted', 'accepted', 'stale', 'accepted', 'conflict']);
    expect(found[2]!.details.reason).toBe('every change of changelog 299 on issue 10042 was superseded: +service:prd-approved by the removal at revision 300');
    expect(found[4]!.details).toMatchObject({ event_status: 'failed' });
    const view = await getJson(`${stack.api}/api/v1/workflows/ING-3/execution`, TOKEN);
    expect(view.body).toMatchObject({ last_observation: { conflicting: true }, observation_decisions: { accepted: 3, stale: 1, conflict: 1, duplicate: 0 } });
    expect((await getJson(`${stack.api}/api/v1/org-pulse/workflows/ING-3`, TOKEN)).body).toMatchObject({ observation_conflicting: true });
  });

  it('takes GitLab hooks only for registered repositories with the right token, answering 202', async () => {
    await startTicket('GLB-1');
    const note = fixture<Json>('gitlab/note-on-merge-request.json');
    expect(await gitlab(note)).toMatchObject({ status: 202, body: { status: 'queued', ticket_key: 'GLB-1', routed_by: 'title' } });
    expect((await gitlab(note, 'wrong-token')).status).toBe(401);
    expect((await gitlab(note, null)).status).toBe(401);
    const elsewhere = { ...note, project: { ...note.project, path_with_namespace: 'someone/else' } };
    expect(await gitlab(elsewhere)).toMatchObject({ status: 404, body: { error: { code: 'unknown_repository' } } });
    const merged = fixture<Json>('gitlab/merge-request-merged.json');
    expect((await gitlab(merged)).status).toBe(202);
    const found = await decisions('GLB-1', 3);
    expect(found.map((e) => [e.details.event, e.status])).toEqual([['issue_created', 'accepted'], ['note', 'accepted'], ['merge_request', 'accepted']]);
  });
});
