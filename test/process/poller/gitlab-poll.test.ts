import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitlabHookSchema } from '../../../src/ingress/gitlab/gitlab-webhook-schema';
import { normaliseGitLabEvent } from '../../../src/ingress/gitlab/normalise-gitlab-event';
import type { NormalisedDelivery } from '../../../src/ingress/normalised-delivery';
import { collectGitLabDeliveries } from '../../../src/poller/gitlab-poll';
import { createGitLabClient, type GitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import { startGitLabSimulator, type GitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';

const UPSTREAM = 'fin/payments';
const TOKEN = 'glpat-service-token-1234';
type Observed = Extract<NormalisedDelivery, { kind: 'observation' }>;

/** What the ledger compares, and what routes the fact to its ticket. */
function fact(delivery: Observed) {
  const { observation, routing } = delivery;
  const comment = observation.facts.comment;
  return {
    identity: observation.delivery_identity,
    fingerprint: observation.fingerprint,
    repository: observation.facts.repository,
    ref: routing.pull_request_ref,
    branch: routing.branch,
    ...(comment ? { comment: { body: comment.body, author: comment.author, discussion: comment.discussion }, actors: observation.facts.actor_ids } : {}),
    ...(observation.facts.pipeline ? { pipeline: observation.facts.pipeline } : {}),
  };
}

/** The simulator's hooks as the gateway reads them: schema, then normaliser. */
function hooksSeen(sim: GitLabSimulator, from = 0): Observed[] {
  return sim.webhooks.deliveries.slice(from).flatMap((delivery) => {
    const result = normaliseGitLabEvent(gitlabHookSchema.parse(delivery.payload));
    return result.kind === 'observation' ? [result] : [];
  });
}

describe('the GitLab poller', () => {
  let sim: GitLabSimulator;
  let client: GitLabClient;

  beforeEach(async () => {
    // A self-managed instance under a path prefix, as the registry's base_url would name it.
    sim = await startGitLabSimulator({ pathPrefix: '/gitlab', projects: [UPSTREAM], tokens: { [TOKEN]: 'service-bot' } });
    client = createGitLabClient({ apiBaseUrl: sim.apiUrl, token: TOKEN, retry: { initialDelayMs: 10 } });
  });
  afterEach(async () => { await sim.close(); });

  const poll = (lookbackSeconds = 3600, now = new Date(Date.now() + 1000)) => collectGitLabDeliveries([{ namespace: UPSTREAM, client }], { now, lookbackSeconds });

  it('rebuilds every hook of a merge request\'s life with the identity and fingerprint the hook had: notes in threads and on the diff, pipelines, and the merge', async () => {
    const project = sim.state.project(UPSTREAM);
    sim.state.push(project, 'service/pay-7');
    const opened = await client.createMergeRequest(UPSTREAM, { title: '[PAY-7] Refunds', description: 'd', sourceBranch: 'service/pay-7', targetBranch: 'main' });
    const mr = project.mergeRequests.find((m) => m.iid === opened.iid)!;
    sim.state.addNote(mr, '/service rebase', 'ada', project);
    sim.state.startDiscussion(mr, 'Why refunds first?', 'bo', { project });
    sim.state.startDiscussion(mr, 'Name this constant.', 'bo', { project, position: { path: 'src/refund.ts', line: 3 } });
    sim.state.replyInDiscussion(mr, mr.notes[1]!.discussionId, 'Agreed, why?', 'ada', project);
    sim.state.reportPipeline(project, 'service/pay-7', project.branches.get('service/pay-7')!, 'running');
    sim.state.reportPipeline(project, 'service/pay-7', project.branches.get('service/pay-7')!, 'failed');
    sim.state.approve(project, mr, 'bo');

    const hooks = hooksSeen(sim).map(fact);
    const polled = (await poll()).map(fact);
    // The running pipeline is not a fact (neither way), nor is the approval's system note; everything else is seen
    // both ways, once.
    expect(hooks.map((h) => h.identity)).toHaveLength(7);
    expect(hooks.filter((h) => h.identity.includes(':approved:'))).toHaveLength(1);
    expect(polled).toEqual(expect.arrayContaining(hooks));
    expect(polled).toHaveLength(hooks.length);
    expect(polled.find((p) => p.comment?.body === 'Name this constant.')?.comment?.discussion).toMatchObject({ thread: true, path: 'src/refund.ts', line: 3 });
    expect(polled.find((p) => p.comment?.body === '/service rebase')?.actors).toEqual([expect.stringMatching(/^gitlab-id:\d+$/)]);

    const before = sim.webhooks.deliveries.length;
    sim.state.merge(project, mr, 'ada');
    const merged = hooksSeen(sim, before).map(fact);
    expect(merged.map((m) => m.identity)).toEqual([`gitlab:mr:${UPSTREAM}!${mr.iid}:merged:${mr.mergeCommitSha}`]);
    const afterMerge = (await poll()).map(fact);
    expect(afterMerge).toEqual(expect.arrayContaining(merged));
    // The merge comes after the facts of the merge request's last moments.
    expect(afterMerge.at(-1)).toEqual(merged[0]);
  });

  it('names a close by the head it closed, so a note written after the close does not make it a new fact', async () => {
    const project = sim.state.project(UPSTREAM);
    sim.state.push(project, 'service/pay-8');
    const { iid } = await client.createMergeRequest(UPSTREAM, { title: '[PAY-8] Cards', description: 'd', sourceBranch: 'service/pay-8', targetBranch: 'main' });
    const before = sim.webhooks.deliveries.length;
    await client.updateMergeRequest(UPSTREAM, iid, { stateEvent: 'close' });
    const [closed] = hooksSeen(sim, before).map(fact);
    await new Promise((resolve) => setTimeout(resolve, 5));
    sim.state.addNote(project.mergeRequests[0]!, 'Closing: done elsewhere.', 'ada', project);
    const polled = (await poll()).map(fact);
    expect(polled.filter((p) => p.identity.includes(':closed:'))).toEqual([closed]);
  });

  it('delivers nothing for an open merge request where nothing happened in the window, and only the new fact when one did', async () => {
    const project = sim.state.project(UPSTREAM);
    sim.state.push(project, 'service/pay-9');
    const { iid } = await client.createMergeRequest(UPSTREAM, { title: '[PAY-9] Idle', description: 'd', sourceBranch: 'service/pay-9', targetBranch: 'main' });
    sim.state.reportPipeline(project, 'service/pay-9', project.branches.get('service/pay-9')!, 'success');
    const later = new Date(Date.now() + 120_000);
    expect(await poll(60, later)).toEqual([]);

    const mr = project.mergeRequests.find((m) => m.iid === iid)!;
    sim.state.addNote(mr, 'Looks good.', 'ada', project);
    const recent = await poll(60, new Date(Date.now() + 1000));
    // The note, and the merge request it touched (the same head: a duplicate of the opening for the ledger).
    expect(recent.map((d) => d.observation.event).sort()).toEqual(['merge_request', 'note', 'pipeline']);
    expect(recent.find((d) => d.observation.event === 'merge_request')!.observation.delivery_identity).toBe(hooksSeen(sim).find((h) => h.observation.event === 'merge_request')!.observation.delivery_identity);
  });

  it('reads a merge request from a fork in its target project, with the fork\'s pipelines under the target\'s name, as the hooks name them', async () => {
    const upstream = sim.state.project(UPSTREAM);
    const fork = sim.state.fork(upstream, 'service-bot');
    sim.state.push(fork, 'service/pay-10');
    await client.createMergeRequest(fork.path, { title: '[PAY-10] From a fork', description: 'd', sourceBranch: 'service/pay-10', targetBranch: 'main', targetProjectId: upstream.id });
    sim.state.reportPipeline(fork, 'service/pay-10', fork.branches.get('service/pay-10')!, 'success');

    const hooks = hooksSeen(sim).map(fact);
    expect(hooks.map((h) => [h.repository, h.ref])).toEqual([[UPSTREAM, `${UPSTREAM}!1`], [UPSTREAM, `${UPSTREAM}!1`]]);
    expect((await poll()).map(fact)).toEqual(hooks);
  });
});
