/**
 * The GitHub-shaped simulator's webhooks carry the headers of SPEC 4.3, a valid signature, and the fields the gateway
 * reads. Their shape as a whole is held to GitHub's OpenAPI description in github-openapi-contract.test.ts.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScmhostSimulator, ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startWebhookReceiver, ReceivedWebhook } from './webhook-receiver';

const SECRET = 'scmhost-webhook-secret';

describe('GitHub-shaped simulator webhooks: headers, signature and the fields the gateway reads', () => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let sim: ScmhostSimulator;
  const byEvent = (event: string, action: string): ReceivedWebhook => {
    const found = receiver.received.find((r) => r.headers['x-github-event'] === event && r.json.action === action);
    if (!found) throw new Error(`no ${event}.${action} delivered`);
    return found;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    sim = await startScmhostSimulator({ repositories: ['acme/api'], webhook: { url: `${receiver.url}/scmhost`, secret: SECRET } });
    const repo = sim.state.repo('acme', 'api');
    const bot = sim.state.user('service-bot');
    sim.state.pushBranch(repo, 'service/proj-1');
    const pull = sim.state.createPull(repo, { title: '[PROJ-1] Checkout', body: 'body', head: 'service/proj-1', base: 'main' }, bot);
    const sha = sim.state.pushBranch(repo, 'service/proj-1');
    sim.state.reportCheckRun(repo, { name: 'test', headSha: sha, conclusion: 'failure', summary: '1 failed' });
    sim.state.addIssueComment(repo, pull.number, '/service skip-gate test');
    sim.state.submitReview(repo, pull.number, { state: 'CHANGES_REQUESTED', body: 'please fix', comments: [{ path: 'a.ts', line: 1, body: 'here' }] });
    sim.state.mergePull(repo, pull.number);
    await sim.webhooks.flush();
  });
  afterAll(async () => {
    await sim.close();
    await receiver.close();
  });

  it('carries the headers of SPEC 4.3 and a valid signature', () => {
    for (const delivery of receiver.received) {
      const event = delivery.headers['x-github-event'];
      expect(delivery.headers['x-scmhost-event']).toBe(event);
      expect(delivery.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(delivery.headers['x-hub-signature-256']).toBe(`sha256=${createHmac('sha256', SECRET).update(delivery.body).digest('hex')}`);
    }
  });

  it('has the fields the gateway reads', () => {
    const review = byEvent('pull_request_review', 'submitted').json as any;
    expect(review).toMatchObject({
      review: { id: expect.any(Number), state: 'changes_requested', body: 'please fix', commit_id: expect.stringMatching(/^[0-9a-f]{40}$/) },
      pull_request: { number: 1, title: '[PROJ-1] Checkout', head: { ref: 'service/proj-1', sha: expect.any(String) }, state: 'open' },
      repository: { full_name: 'acme/api' },
      sender: { login: 'octo-reviewer' },
    });
    const check = byEvent('check_run', 'completed').json as any;
    expect(check.check_run).toMatchObject({ status: 'completed', conclusion: 'failure', pull_requests: [{ number: 1, head: { ref: 'service/proj-1' } }] });
    expect(check.check_run.head_sha).toBe(check.check_run.pull_requests[0].head.sha);
    const comment = byEvent('issue_comment', 'created').json as any;
    expect(comment).toMatchObject({ issue: { number: 1, title: '[PROJ-1] Checkout', pull_request: { url: expect.stringContaining('/pulls/1') } }, comment: { body: '/service skip-gate test' } });
    const closed = byEvent('pull_request', 'closed').json as any;
    expect(closed.pull_request).toMatchObject({ merged: true, state: 'closed', merged_by: { login: 'octo-reviewer' } });
  });
});
