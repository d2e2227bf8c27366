/**
 * `service sandbox ... --as <email>`: the sandbox's person acts as someone else, in the tracker and on the source
 * host, and the webhooks the service receives say so. Checked through the service's own webhook parsing and its
 * allowed-actors decision (no Temporal here): with only pat@example.com allowed, sam's `/service approve` is an
 * actor the service refuses, pat's one it counts; sam's review and merge carry sam's login.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedActors, decideActor } from '../../../src/config/allowed-actors';
import { normaliseScmhostEvent } from '../../../src/ingress/scmhost/normalise-scmhost-event';
import { SCMHOST_EVENT_SCHEMAS } from '../../../src/ingress/scmhost/scmhost-webhook-schema';
import { normaliseTrackerEvent } from '../../../src/ingress/tracker/normalise-tracker-event';
import { trackerWebhookSchema } from '../../../src/ingress/tracker/tracker-webhook-schema';
import { SandboxPerson, SandboxRequestError } from '../../../src/sandbox/sandbox-person';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox-stack';
import { accountIdForEmail } from '../../../src/sandbox/tracker-simulator/tracker-state';
import { pushCommit, remoteUrl } from './git-over-http';
import { startWebhookReceiver } from './webhook-receiver';

describe('service sandbox ... --as <email>', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-as-'));
  const stateDir = join(dataDir, 'sandbox');
  let sandbox: Sandbox;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let pat: SandboxPerson;
  let sam: SandboxPerson;

  /** The tracker deliveries of an event so far, parsed and normalised as the gateway does. */
  const trackerObservations = async (webhookEvent: string) => {
    await sandbox.tracker.webhooks.flush();
    return receiver.received.filter((r) => r.json.webhookEvent === webhookEvent).map((r) => {
      const result = normaliseTrackerEvent(trackerWebhookSchema.parse(r.json));
      if (result.kind !== 'observation') throw new Error(`not an observation: ${JSON.stringify(result)}`);
      return { json: r.json as Record<string, any>, observations: result.observations };
    });
  };
  const scmhostFacts = async (event: 'pull_request' | 'pull_request_review') => {
    await sandbox.scmhost.webhooks.flush();
    return receiver.received.filter((r) => r.headers['x-github-event'] === event).map((r) => {
      const result = normaliseScmhostEvent(event, SCMHOST_EVENT_SCHEMAS[event].parse(r.json) as never);
      return result.kind === 'observation' ? result.observation.facts as Record<string, any> : undefined;
    });
  };
  const openPull = async (key: string, file: string) => {
    const bot = remoteUrl(sandbox.scmhost.url, 'sandbox/app', sandbox.env.SCMHOST_TOKEN!);
    await pushCommit(bot, `service/${key.toLowerCase()}`, { [file]: `${key}\n` }, `[${key}] implement`, { from: 'main' });
    const scm = sandbox.scmhost.state;
    return scm.createPull(scm.repo('sandbox', 'app'), { title: `[${key}] Try me`, head: `service/${key.toLowerCase()}`, base: 'main' }, scm.user('service-bot')).number;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    sandbox = await startSandbox({ stateDir, serviceStateExists: false, env: {} });
    sandbox.connect(receiver.url.replace(/\/api\/v1\/webhooks$/, ''));
    pat = await SandboxPerson.connect(stateDir);
    sam = await SandboxPerson.connect(stateDir, { as: 'sam@example.com' });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates, comments and labels as that person: a stable Jira Cloud-style account, and the webhooks name them', async () => {
    const key = await sam.createTicket({ summary: 'Try --as', type: 'Task', labels: ['service:managed'] });
    const samId = accountIdForEmail('sam@example.com');
    expect(samId).toMatch(/^712020:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(accountIdForEmail('SAM@example.com')).toBe(samId);
    expect(sandbox.tracker.state.issue(key).creator).toMatchObject({ accountId: samId, displayName: 'sam', emailAddress: 'sam@example.com' });

    await sam.comment(key, '/service approve');
    await pat.comment(key, '/service approve');
    await sam.label(key, 'service:retry', false);
    const comments = await trackerObservations('comment_created');
    expect(comments.map((c) => c.json.comment.author.accountId)).toEqual([samId, '5b10ac8d82e05b22cc7d4ef5']);
    expect(comments[0]!.json.comment.author).toMatchObject({ displayName: 'sam', emailAddress: 'sam@example.com' });
    const changed = await trackerObservations('jira:issue_updated');
    expect(changed.at(-1)!.json.user).toMatchObject({ accountId: samId });
    expect(changed.at(-1)!.observations.find((o) => o.facts.label_change)?.facts.actor_ids).toEqual(expect.arrayContaining([`tracker:${samId}`]));

    // What the service decides on them, with only pat allowed: sam is refused, pat counts.
    const allowed = allowedActors({ SERVICE_ALLOWED_ACTORS: 'tracker-email:pat@example.com' }, undefined, 'SBX');
    const actorsOf = (n: number) => comments[n]!.observations.find((o) => o.event === 'issue_commented')!.facts.actor_ids as string[];
    expect(actorsOf(0)).toEqual(expect.arrayContaining(['tracker-email:sam@example.com', `tracker:${samId}`]));
    expect(decideActor(allowed, actorsOf(0))).toMatchObject({ allowed: false, reason: expect.stringContaining('is not listed in SERVICE_ALLOWED_ACTORS') });
    expect(decideActor(allowed, actorsOf(1))).toMatchObject({ allowed: true });
  });

  it('reviews and merges as that person\'s login on the source host', async () => {
    const number = await openPull('SBX-90', 'SANDBOX_CHANGES/SBX-90.md');
    expect(await sam.approvePullRequest('SBX-90')).toBe(number);
    const reviews = await scmhostFacts('pull_request_review');
    expect(reviews.at(-1)).toMatchObject({ review: { state: 'approved', author: 'sam' }, sender: 'sam' });
    expect(decideActor(allowedActors({ SERVICE_ALLOWED_ACTORS: 'github:octo-reviewer' }, undefined, 'SBX'), [`github:${reviews.at(-1)!.review.author}`]).allowed).toBe(false);
    expect(await sam.mergePullRequest('SBX-90')).toBe(number);
    expect(sandbox.scmhost.state.pull(sandbox.scmhost.state.repo('sandbox', 'app'), number).mergedBy?.login).toBe('sam');
    expect((await scmhostFacts('pull_request')).at(-1)).toMatchObject({ action: 'closed', sender: 'sam' });
  });

  it('answers a conflict a person pushed to main as GitHub does: the merge is refused with 405', async () => {
    await openPull('SBX-91', 'SANDBOX_CHANGES/SBX-91.md');
    const pushed = await sam.commitToMain('SANDBOX_CHANGES/SBX-91.md', 'Edited on main meanwhile', 'Edit SBX-91 notes on main');
    expect(pushed.branch).toBe('main');
    expect(sandbox.scmhost.state.repo('sandbox', 'app').branches.get('main')).toBe(pushed.sha);
    const refused = await pat.mergePullRequest('SBX-91').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxRequestError);
    expect((refused as Error).message).toMatch(/: 405 \{"message":"Pull Request is not mergeable"/);
  });

  it('refuses the service\'s own account and anything that is not an e-mail, before acting', async () => {
    await expect(SandboxPerson.connect(stateDir, { as: 'service@sandbox.local' })).rejects.toThrow(/the service's own account/);
    await expect(SandboxPerson.connect(stateDir, { as: 'sam' })).rejects.toThrow(/--as takes an e-mail address/);
  });
});
