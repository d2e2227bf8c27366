/**
 * Contract: the GitHub-shaped simulator's webhooks must look like GitHub's own, as published in
 * @octokit/webhooks-examples. Every field the simulator sends must exist in a real example of the same event and
 * action with a compatible JSON type, and the fields the gateway reads (SPEC 4.3) must be present.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import examples from '@octokit/webhooks-examples';
import { startScmhostSimulator, ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startWebhookReceiver, ReceivedWebhook } from './webhook-receiver';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function typeOf(value: Json): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Every path (arrays collapsed to `[]`) with the JSON types seen there. */
function shape(value: Json, prefix = '', into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  const types = into.get(prefix) ?? new Set<string>();
  types.add(typeOf(value));
  into.set(prefix, types);
  if (Array.isArray(value)) for (const item of value) shape(item, `${prefix}[]`, into);
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) shape(item, prefix ? `${prefix}.${key}` : key, into);
  return into;
}

function exampleShape(event: string, action: string): Map<string, Set<string>> {
  const group = (examples as unknown as Array<{ name: string; examples: Array<Record<string, Json>> }>).find((e) => e.name === event);
  const matching = (group?.examples ?? []).filter((e) => e.action === action);
  if (matching.length === 0) throw new Error(`no published example for ${event}.${action}`);
  const merged = new Map<string, Set<string>>();
  for (const example of matching) shape(example as Json, '', merged);
  return merged;
}

/**
 * Fields GitHub sends that the chosen examples happen not to show (documented in GitHub's webhook docs): the
 * `pull_request` link of an issue that is a PR, and `merged_by` (a user; the examples only show null).
 * An entry ending in '.' covers everything under it.
 */
const DOCUMENTED_EXTRAS: Record<string, string[]> = {
  issue_comment: ['issue.pull_request', 'issue.pull_request.'],
  pull_request: ['pull_request.merged_by.'],
};

function documentedExtra(event: string, path: string): boolean {
  return (DOCUMENTED_EXTRAS[event] ?? []).some((entry) => (entry.endsWith('.') ? path.startsWith(entry) : path === entry));
}

function mismatches(event: string, action: string, payload: Json): string[] {
  const reference = exampleShape(event, action);
  const problems: string[] = [];
  for (const [path, types] of shape(payload)) {
    if (path === '' || documentedExtra(event, path)) continue;
    const known = reference.get(path);
    if (!known) { problems.push(`${path}: not in GitHub's examples`); continue; }
    for (const type of types) {
      if (type !== 'null' && !known.has('null') && !known.has(type)) problems.push(`${path}: ${type}, GitHub sends ${[...known].join('|')}`);
    }
  }
  return problems;
}

const SECRET = 'scmhost-webhook-secret';

describe('GitHub-shaped simulator webhooks match published examples', () => {
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

  it.each([
    ['pull_request', 'opened'],
    ['pull_request', 'synchronize'],
    ['pull_request', 'closed'],
    ['pull_request_review', 'submitted'],
    ['issue_comment', 'created'],
    ['check_run', 'completed'],
  ])('%s.%s has only fields GitHub sends, with GitHub\'s types', (event, action) => {
    expect(mismatches(event, action, byEvent(event, action).json as Json)).toEqual([]);
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

  it('detects a payload that strays from GitHub\'s shape (the check can fail)', () => {
    const payload = structuredClone(byEvent('pull_request', 'opened').json) as any;
    payload.pull_request.number = '1';
    payload.pull_request.ticket = 'PROJ-1';
    expect(mismatches('pull_request', 'opened', payload)).toEqual(['pull_request.number: string, GitHub sends number', 'pull_request.ticket: not in GitHub\'s examples']);
  });
});
