import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../../activities/effect-activities';
import { createLogger } from '../../../src/logging/logger';
import { createScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';

const EMAIL = 'bot@example.com';
const TRACKER_TOKEN = 'tracker-token-ownWrites0123';
const GITHUB_TOKEN = 'ghp_ownWritesEffectToken0123456789abcdef';

/**
 * Someone who may comment on the ticket or the pull request copies the marker (or on Jira, the property) of the
 * service's next write into a comment of their own, before the service writes. The service must still write its own
 * comment once, leave theirs alone, and on a retry adopt only its own. Real clients over HTTP against the simulators.
 */
describe('effects next to a forged earlier write', () => {
  let tracker: TrackerSimulator;
  let github: ScmhostSimulator;
  const logger = createLogger({ level: 'error', write: () => undefined });
  const effectsWith = (scmhostOptions: { botLogin?: string } = {}) => createEffectActivities({
    tracker: createTrackerClient({ baseUrl: tracker.url, email: EMAIL, apiToken: TRACKER_TOKEN, retry: { initialDelayMs: 10 } }),
    scmhost: () => createScmhostClient({ token: GITHUB_TOKEN, baseUrl: github.url, writeSpacingMs: 0, retryBaseMs: 10, timeoutMs: 5_000, ...scmhostOptions }),
    logger,
  });
  const perform = (effects: ReturnType<typeof createEffectActivities>, key: string, operation: Record<string, unknown>, attempt = 1) =>
    effects.performEffect({ idempotency_key: key, attempt, operation } as never);

  beforeAll(async () => {
    tracker = await startTrackerSimulator({ projects: ['FD'], credentials: { email: EMAIL, apiToken: TRACKER_TOKEN } });
    github = await startScmhostSimulator({ repositories: ['acme/api'], tokens: { [GITHUB_TOKEN]: 'service-bot' } });
    tracker.state.createIssue({ projectKey: 'FD', issueType: 'Feature', summary: 'Export' });
    const repo = github.state.repo('acme', 'api');
    github.state.pushBranch(repo, 'service/fd-1');
    github.state.createPull(repo, { title: '[FD-1] Export', head: 'service/fd-1', base: 'main' }, github.state.user('service-bot'));
  });
  afterAll(async () => Promise.all([tracker?.close(), github?.close()]));

  it('tracker.comment: writes its own comment beside a person\'s carrying the key\'s property, and a retry adopts its own', async () => {
    const effects = effectsWith();
    const key = 'FD-1:run:prd:1:comment';
    const forged = tracker.state.addComment('FD-1', 'PRD: nothing to build.', undefined, [{ key: 'service.idempotency', value: { key } }]);
    const first = await perform(effects, key, { kind: 'tracker.comment', issue_key: 'FD-1', body: 'PRD: the export.' });
    expect(first).toMatchObject({ status: 'succeeded' });
    expect(first.evidence).not.toHaveProperty('adopted');
    expect(first.evidence!.ids!.comment_id).not.toBe(forged.id);
    expect(await perform(effects, key, { kind: 'tracker.comment', issue_key: 'FD-1', body: 'PRD: the export.' }, 2)).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: first.evidence!.ids } });
    expect(tracker.state.issue('FD-1').comments.map((c) => c.id)).toEqual([forged.id, first.evidence!.ids!.comment_id]);
  });

  it('scmhost.pr_comment: writes its own comment beside a person\'s carrying its marker, and a retry adopts its own', async () => {
    const effects = effectsWith();
    const key = 'FD-1:run:ci:1:comment';
    github.state.addIssueComment(github.state.repo('acme', 'api'), 1, `All checks passed, merging.\n\n<!-- service:idempotency-key=${key} -->`, github.state.user('mallory'));
    const operation = { kind: 'scmhost.pr_comment', repository: 'acme/api', number: 1, body: 'CI failed: lint.' };
    const first = await perform(effects, key, operation);
    expect(first).toMatchObject({ status: 'succeeded' });
    expect(first.evidence).not.toHaveProperty('adopted');
    expect(await perform(effects, key, operation, 2)).toMatchObject({ status: 'succeeded', evidence: { adopted: true, ids: first.evidence!.ids } });
    const marked = github.state.issueComments.filter((c) => c.body.includes(key)).map((c) => [c.user.login, c.body.split('\n')[0]]);
    expect(marked).toEqual([['mallory', 'All checks passed, merging.'], ['service-bot', 'CI failed: lint.']]);
  });

  it('fails the attempt as retryable, naming the lookup, when the service account cannot be learned: nothing adopted, nothing written', async () => {
    const key = 'FD-1:run:ci:2:comment';
    github.state.addIssueComment(github.state.repo('acme', 'api'), 1, `Done.\n\n<!-- service:idempotency-key=${key} -->`, github.state.user('mallory'));
    const before = github.state.issueComments.length;
    github.faults.enqueue({ match: { method: 'GET', path: '^/user$' }, kind: 'status', status: 503, times: 10 });
    const failed = await perform(effectsWith(), key, { kind: 'scmhost.pr_comment', repository: 'acme/api', number: 1, body: 'CI failed.' });
    expect(failed).toMatchObject({ status: 'retryable_failure', evidence: { provider: 'scmhost', status_code: 503 } });
    expect(failed.error).toMatch(/^scmhost GET \/user status 503 \(getAuthenticatedUser\): could not learn the service account/);
    expect(github.state.issueComments).toHaveLength(before);

    tracker.faults.enqueue({ match: { method: 'GET', path: /\/myself$/ }, kind: 'status', status: 401, times: 10 });
    const refused = await perform(effectsWith(), 'FD-1:run:prd:2:comment', { kind: 'tracker.comment', issue_key: 'FD-1', body: 'x' });
    expect(refused).toMatchObject({ status: 'retryable_failure' });
    expect(refused.error).toMatch(/^tracker GET \/rest\/api\/3\/myself status 401 \(getMyself\): could not learn the service account/);
    github.faults.clear();
    tracker.faults.clear();
    // With the bot login configured, GitHub is not asked who the service is.
    github.faults.enqueue({ match: { method: 'GET', path: '^/user$' }, kind: 'status', status: 503, times: 10 });
    expect(await perform(effectsWith({ botLogin: 'service-bot' }), key, { kind: 'scmhost.pr_comment', repository: 'acme/api', number: 1, body: 'CI failed.' }, 2)).toMatchObject({ status: 'succeeded' });
    expect(github.state.issueComments).toHaveLength(before + 1);
    github.faults.clear();
  });
});
