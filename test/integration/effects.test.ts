import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const TRACKER_SECRET = 'effects-tracker-secret';
const TOKEN = 'effects-operator-token';
const EFFECT_TOKEN = 'effects-replay-token';

type Json = Record<string, any>;
const FINAL = ['succeeded', 'terminal_failure', 'precondition_failure'];

describe('durable effects against the tracker simulator', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let stack: ServiceStack;

  beforeAll(async () => {
    world = await startWorld({
      name: 'effects',
      tracker: { projects: ['EFF', 'CFG'] },
      operatorToken: TOKEN,
      env: { TRACKER_WEBHOOK_SECRET: TRACKER_SECRET, EFFECT_OPERATOR_TOKEN: EFFECT_TOKEN, SERVICE_EFFECT_TIMEOUT_SECONDS: '5', SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    world.tracker.state.setProperty(world.tracker.state.project('CFG').properties, 'service.repos', ['acme/api']);
    ({ tracker, stack } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body;
  const effectsApi = (path: string, init: RequestInit = {}, token = EFFECT_TOKEN) =>
    fetch(`${stack.api}/api/v1/effects${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });
  const commentsOn = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body));

  async function blockedTicket(projectKey: string): Promise<{ key: string; view: Json }> {
    const issue = tracker.state.createIssue({ projectKey, issueType: 'Feature', summary: 'Needs setup', labels: ['service:managed'] });
    const view = await eventually(async () => {
      const body = await execution(issue.key);
      return body.status === 'blocked' && body.effects?.length >= 2 && body.effects.every((e: Json) => FINAL.includes(e.status)) ? body : undefined;
    }, 60_000, `${issue.key} blocked with its effects resolved`);
    return { key: issue.key, view };
  }

  it('passes intake when the project is configured, then fails closed at the PRD: no model is configured here', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'CFG', issueType: 'Story', summary: 'Configured', labels: ['service:managed'] });
    const view = await eventually(async () => {
      const body = await execution(issue.key);
      return body.status === 'blocked' && body.effects?.length >= 2 && body.effects.every((e: Json) => FINAL.includes(e.status)) ? body : undefined;
    }, 60_000, `${issue.key} through intake`);
    expect(view.station_attempts[0]).toMatchObject({ station: 'intake', status: 'succeeded', outcome: 'configured' });
    const timeline = await getJson(`${stack.api}/api/v1/workflows/${issue.key}/execution/timeline`, TOKEN);
    const intake = (timeline.body.entries as Json[]).find((e) => e.kind === 'station_attempt')!;
    expect(intake.summary).toContain('Project configuration found (project_properties): acme/api');
    expect(view).toMatchObject({ current_position: 'generate_prd', waiting: { code: 'invalid_model_policy' }, checkpoint: { is_blocked: true } });
    // The SPEC 2.10 report, not a generic block comment, and no model was called.
    const comments = commentsOn(issue.key);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('generate_prd');
    expect(comments[0]).toContain('service:retry');
    expect(tracker.state.issue(issue.key).labels).toContain('service:blocked');
  });

  it('blocks with setup instructions when the project has no repositories, and service:retry resumes once it has', async () => {
    const { key, view } = await blockedTicket('EFF');
    expect(view).toMatchObject({ status: 'blocked', waiting: { code: 'missing_project_config' }, checkpoint: { is_blocked: true } });
    expect(tracker.state.issue(key).labels).toContain('service:blocked');
    const comments = commentsOn(key);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('`service.repos`');
    expect(comments[0]).toContain('`service.default_repo`');
    expect(comments[0]).toContain('service:retry');
    expect(comments[0]).toContain('`EFF`');

    tracker.state.setProperty(tracker.state.project('EFF').properties, 'service.repos', ['acme/api']);
    tracker.state.updateLabels(key, [{ add: 'service:retry' }]);
    // Resumed at the saved node (intake), which now passes; the ticket goes on to the next node and stops there,
    // because this build has no PRD station.
    const resumed = await eventually(async () => {
      const body = await execution(key);
      return body.retry_count === 1 && body.current_position === 'generate_prd' && body.status === 'blocked' && body.effects.every((e: Json) => FINAL.includes(e.status))
        && !tracker.state.issue(key).labels.includes('service:retry') ? body : undefined;
    }, 60_000, `${key} resumed`);
    expect(resumed).toMatchObject({ waiting: { code: 'invalid_model_policy' }, checkpoint: { ci_fix_attempts: 0 } });
    const transitions = (await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN)).body.entries.filter((e: Json) => e.kind === 'transition');
    expect(transitions.map((e: Json) => e.status)).toEqual(['blocked', 'resumed', 'configured', 'blocked']);
    const after = commentsOn(key);
    expect(after).toHaveLength(2);
    expect(after[1]).toContain('generate_prd');
    // The worker measured how long the ticket waited blocked.
    expect(await (await fetch(stack.workerMetricsUrl)).text()).toMatch(/service_execution_waiting_age_seconds_count [1-9]/);
    tracker.state.project('EFF').properties.delete('service.repos');
  });

  it('answers an unrecognized /service command with ❌ once, and a blocked ticket keeps its first blocking reason', async () => {
    const issue = tracker.state.createIssue({ projectKey: 'CFG', issueType: 'Feature', summary: 'Commands', labels: ['service:managed'] });
    await eventually(async () => ((await execution(issue.key)).status === 'blocked' ? true : undefined), 60_000, `${issue.key} blocked at the first station`);
    tracker.state.addComment(issue.key, '/service frobnicate --now');
    const answered = await eventually(async () => {
      const body = await execution(issue.key);
      return body.effects.length >= 3 && body.effects.every((e: Json) => FINAL.includes(e.status)) ? body : undefined;
    }, 60_000, `${issue.key} answered the command`);
    expect(answered).toMatchObject({ waiting: { code: 'invalid_model_policy' }, current_position: 'generate_prd' });
    const written = commentsOn(issue.key).filter((c) => !c.startsWith('/service'));
    expect(written).toHaveLength(2);
    expect(written[1]).toMatch(/^❌ `\/service frobnicate --now`: unknown command "frobnicate"\. Known commands: `\/service approve`/);

    // A question where nothing can answer it is not met with silence: the ticket says where it stands, once.
    tracker.state.addComment(issue.key, '? what is going on');
    const told = await eventually(async () => {
      const replies = commentsOn(issue.key).filter((c) => c.startsWith('ℹ️'));
      return replies.length > 0 ? replies : undefined;
    }, 60_000, `${issue.key} to answer the question`);
    expect(told).toEqual([expect.stringContaining(`${issue.key} is blocked at \`generate_prd\` (\`invalid_model_policy\`)`)]);
    expect(told[0]).toContain('service:retry');
  });

  it('records a terminal failure with its evidence, replays it once the fault is cleared, and refuses other replays', async () => {
    tracker.faults.enqueue({ match: { method: 'POST', path: /\/comment$/ }, kind: 'status', status: 400, times: 1 });
    const { key, view } = await blockedTicket('EFF');
    const comment = view.effects.find((e: Json) => e.operation === 'tracker.comment');
    expect(comment).toMatchObject({ status: 'terminal_failure', attempts: 1 });
    expect(commentsOn(key)).toHaveLength(0);

    expect((await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}`, {}, 'wrong')).status).toBe(401);
    expect((await fetch(`${stack.api}/api/v1/effects/${encodeURIComponent(comment.idempotency_key)}?token=${EFFECT_TOKEN}`)).status).toBe(401);
    const one = await (await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}`)).json() as Json;
    expect(one.effect).toMatchObject({ idempotency_key: comment.idempotency_key, run_id: view.run_id, status: 'terminal_failure', required: false });
    expect(one.effect.attempts[0]).toMatchObject({ attempt: 1, status: 'terminal_failure', trigger: 'workflow', evidence: { provider: 'tracker', status_code: 400 } });
    const ofRun = await (await effectsApi(`/workflow/${view.run_id}`)).json() as Json;
    expect(ofRun.effects.map((e: Json) => e.idempotency_key)).toContain(comment.idempotency_key);

    const replay = await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}/replay`, { method: 'POST' });
    expect(replay.status).toBe(200);
    const replayed = await replay.json() as Json;
    expect(replayed.effect).toMatchObject({ status: 'succeeded' });
    expect(replayed.effect.attempts.map((a: Json) => [a.trigger, a.status])).toEqual([['workflow', 'terminal_failure'], ['replay', 'succeeded']]);
    expect(commentsOn(key)).toHaveLength(1);

    const again = await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}/replay`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect((await effectsApi(`/${encodeURIComponent(`${key}:nope:x:y:1`)}/replay`, { method: 'POST' })).status).toBe(404);
    expect((await effectsApi('/workflow/not-a-run')).status).toBe(404);
    const timeline = await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN);
    expect(timeline.body.entries.filter((e: Json) => e.kind === 'operator_action')).toHaveLength(1);
    expect((await execution(key)).status).toBe('blocked');
  });

  it('adopts a comment whose write was applied before the provider timed out: no duplicate', async () => {
    tracker.faults.enqueue({ match: { method: 'POST', path: /\/comment$/ }, kind: 'apply-then-timeout', holdMs: 300, times: 1 });
    const { key, view } = await blockedTicket('EFF');
    const comment = view.effects.find((e: Json) => e.operation === 'tracker.comment');
    expect(comment).toMatchObject({ status: 'succeeded', attempts: 2 });
    const detail = await (await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}`)).json() as Json;
    expect(detail.effect.attempts.map((a: Json) => a.status)).toEqual(['indeterminate', 'succeeded']);
    expect(detail.effect.attempts[1].evidence).toMatchObject({ adopted: true });
    expect(commentsOn(key)).toHaveLength(1);
  });

  it('waits as long as Retry-After asks before trying again', async () => {
    tracker.faults.enqueue({ match: { method: 'POST', path: /\/comment$/ }, kind: 'rate-limit', retryAfterSeconds: 2, times: 1 });
    const { key, view } = await blockedTicket('EFF');
    const comment = view.effects.find((e: Json) => e.operation === 'tracker.comment');
    const detail = await (await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}`)).json() as Json;
    expect(detail.effect.status).toBe('succeeded');
    const attempts = detail.effect.attempts as Json[];
    const waited = Date.parse(attempts.at(-1)!.finished_at) - Date.parse(attempts[0]!.started_at);
    expect(waited).toBeGreaterThanOrEqual(1_900);
    expect(commentsOn(key)).toHaveLength(1);
  });

  it('leaves exactly one comment when the worker is killed in the middle of the write and restarted', async () => {
    tracker.faults.enqueue({ match: { method: 'POST', path: /\/comment$/ }, kind: 'delay', ms: 2_000, times: 1 });
    const issue = tracker.state.createIssue({ projectKey: 'EFF', issueType: 'Bug', summary: 'Crash mid-write', labels: ['service:managed'] });
    await eventually(async () => (tracker.faults.applied.some((f) => f.kind === 'delay') ? true : undefined), 60_000, 'the delayed comment write');
    expect(await stack.worker.stop('SIGKILL')).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 2_500));
    expect(commentsOn(issue.key)).toHaveLength(1);
    await stack.restartWorker();
    const view = await eventually(async () => {
      const body = await execution(issue.key);
      const comment = body.effects?.find((e: Json) => e.operation === 'tracker.comment');
      return comment?.status === 'succeeded' ? body : undefined;
    }, 90_000, 'the comment effect to succeed after the restart');
    const comment = view.effects.find((e: Json) => e.operation === 'tracker.comment');
    const detail = await (await effectsApi(`/${encodeURIComponent(comment.idempotency_key)}`)).json() as Json;
    expect(detail.effect.attempts.map((a: Json) => a.status)).toEqual(['indeterminate', 'succeeded']);
    expect(detail.effect.attempts[1].evidence.adopted).toBe(true);
    expect(commentsOn(issue.key)).toHaveLength(1);
  });
});
