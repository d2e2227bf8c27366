import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ticketWorkflowId } from '../../workflows/messages';
import { startCodeChangeWorld, type CodeChangeWorld } from '../helpers/code-change-world';
import { startFailoverProxy, type FailoverProxy } from '../helpers/failover-proxy';
import { freePort } from '../helpers/free-port';
import { startService, type ServiceProcess } from '../helpers/service-process';
import { eventually } from '../helpers/webhooks';
import { setCurrentVersion } from '../helpers/worker-deployment';

const REPO = 'acme/cluster';
const DEPLOYMENT = 'cluster-flow';
type Json = Record<string, any>;

/**
 * The service as a team runs it past one machine: the real Temporal server on PostgreSQL with four history shards
 * (the cluster project's global setup), two gateways behind a load balancer and two workers, each its own process,
 * with the tracker and GitHub simulators, real git and rootless podman. A worker dies while it holds a running
 * station, a gateway dies while webhooks arrive, and the workers roll onto a new build with Worker Deployment
 * Versioning; what a user sees is asserted, as in the flow tests on the dev server.
 */
describe('on a Temporal cluster with two gateways and two workers', () => {
  let world: CodeChangeWorld;
  let connection: Connection;
  let client: Client;
  let proxy: FailoverProxy;
  let secondGateway: ServiceProcess;
  let firstGateway: string;
  /** The workers of build A other than the delivery world's own; the world's is `world.stack.worker`. */
  const workers: ServiceProcess[] = [];

  const startWorker = async (build: string) => {
    const worker = startService(['worker'], { ...world.stack.env, SERVICE_BUILD_ID: build, SERVICE_WORKER_METRICS_PORT: String(await freePort()) });
    await worker.waitForOutput(/worker polling task queue/, 120_000);
    workers.push(worker);
    return worker;
  };
  const setCurrent = (buildId: string) => setCurrentVersion(inject('temporalCliPath'), inject('temporalAddress'), DEPLOYMENT, buildId, 120_000);
  const describeTicket = (key: string) => client.workflow.getHandle(ticketWorkflowId(key)).describe();
  const pinnedBuild = async (key: string) => {
    const info = (await describeTicket(key)).raw.workflowExecutionInfo?.versioningInfo;
    return { behavior: info?.behavior, build: info?.deploymentVersion?.buildId };
  };

  beforeAll(async () => {
    world = await startCodeChangeWorld(inject('temporalAddress'), {
      repositories: [REPO], taskQueue: 'cluster-flow', projectKey: 'CL',
      env: { SERVICE_DEPLOYMENT_NAME: DEPLOYMENT, SERVICE_BUILD_ID: 'build-a', SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    const port = await freePort();
    secondGateway = startService(['gateway'], { ...world.stack.env, SERVICE_GATEWAY_PORT: String(port) });
    await secondGateway.waitForOutput(/gateway listening on/);
    await startWorker('build-a');
    firstGateway = world.stack.api;
    proxy = await startFailoverProxy([firstGateway, `http://127.0.0.1:${port}`]);
    world.tracker.webhooks.setTarget({ ...world.tracker.webhooks.target!, url: `${proxy.url}/api/v1/webhooks/tracker` });
    world.scm.webhooks.setTarget({ ...world.scm.webhooks.target!, url: `${proxy.url}/api/v1/webhooks/scmhost` });
    // What the test reads (the REST API) goes through the load balancer too, as a user's requests would.
    world.stack.api = proxy.url;
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
    await setCurrent('build-a');
  }, 900_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await secondGateway?.stop();
    await proxy?.close();
    await connection?.close();
    await world?.close();
  });

  it('runs a service:yolo Feature to a merged pull request: the worker holding its running station is killed and the other finishes it; the workers then roll onto build B and the ticket stays on build A', async () => {
    const key = world.tracker.state.createIssue({ projectKey: 'CL', issueType: 'Feature', summary: 'Cluster export', description: 'Export from the cluster.', labels: ['service:managed', 'service:yolo'] }).key;

    // The implementation runs in a container on one of the two workers; that worker is killed mid-run.
    const holder = await eventually(async () => {
      const running = (await describeTicket(key)).raw.pendingActivities?.find((a) => /implement_task/.test(a.activityType?.name ?? '') && a.lastWorkerIdentity && a.lastStartedTime);
      return running?.lastWorkerIdentity ?? undefined;
    }, 480_000, `${key}: implement_task running on a worker`);
    const pid = Number(holder.split('@')[0]);
    const all = [world.stack.worker, ...workers];
    const victim = all.find((worker) => worker.process.pid === pid);
    expect(victim, `the station's worker identity ${holder} is one of ours`).toBeDefined();
    const survivor = all.find((worker) => worker !== victim)!;
    expect(await victim!.stop('SIGKILL')).toBe('SIGKILL');
    const review = await world.at(key, 'human_review_gate', 'the human review gate after the worker kill', () => true, 600_000);
    expect(review.status).toBe('waiting');
    expect(world.pullsOf(REPO, key)).toHaveLength(1);
    expect((await world.branchLog(REPO, key)).filter((subject) => subject === `[${key}] implement the tasks`)).toHaveLength(1);
    expect(world.comments(key).filter((c) => c.includes(`${REPO}/pull/`))).toHaveLength(1);
    expect(survivor.process.exitCode).toBeNull();

    // Rolling upgrade: two workers of build B start and B becomes current; the build-A worker that was killed is
    // not brought back, the surviving one drains the tickets pinned to A.
    await startWorker('build-b');
    await startWorker('build-b');
    await setCurrent('build-b');
    expect(await pinnedBuild(key)).toEqual({ behavior: 1, build: 'build-a' });

    world.person.check(REPO, key, 'unit-tests', 'success');
    world.person.merge(REPO, key);
    const done = await world.at(key, 'done', 'the end', () => true, 240_000);
    expect(done.status).toBe('completed');
    expect(world.pullsOf(REPO, key).map((pull) => pull.state)).toEqual(['closed']);
    expect(world.pullsOf(REPO, key)[0]!.merged).toBe(true);
    expect(await pinnedBuild(key)).toEqual({ behavior: 1, build: 'build-a' });
    // Every workflow task of the ticket was completed by build A, before and after B became current.
    const builds = new Set<string>();
    const history = await client.workflow.getHandle(ticketWorkflowId(key)).fetchHistory();
    for (const event of history.events ?? []) {
      const completed = event.workflowTaskCompletedEventAttributes;
      if (completed) builds.add(completed.deploymentVersion?.buildId ?? completed.workerVersion?.buildId ?? 'none');
    }
    expect([...builds]).toEqual(['build-a']);

    // Drained: the last build-A worker stops cleanly.
    expect(await survivor.stop('SIGTERM')).toBe(0);
  });

  it('takes a gated Feature through one approval on build B while one gateway is killed as the webhooks arrive: every question is answered once and nothing is lost', async () => {
    const key = world.tracker.state.createIssue({ projectKey: 'CL', issueType: 'Feature', summary: 'Cluster report', description: 'A report of the cluster.', labels: ['service:managed'] }).key;
    await world.at(key, 'prd_approval_gate', 'the PRD gate');
    expect(await pinnedBuild(key)).toEqual({ behavior: 1, build: 'build-b' });

    const failedOverBefore = proxy.failedOver.get(firstGateway) ?? 0;
    world.tracker.state.addComment(key, '? which formats are in scope');
    await world.tracker.webhooks.flush();
    expect(await world.stack.gateway.stop('SIGKILL')).toBe('SIGKILL');
    world.tracker.state.addComment(key, '? who reads the report');
    world.tracker.state.addComment(key, '? how often is it sent');
    world.tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    await world.tracker.webhooks.flush();
    // Every webhook got an answer from a gateway; the ones sent to the dead gateway went to the other.
    expect(world.tracker.webhooks.deliveries.filter((d) => d.status !== 202 && d.status !== 200)).toEqual([]);
    expect(proxy.failedOver.get(firstGateway) ?? 0).toBeGreaterThan(failedOverBefore);

    const spec = await world.at(key, 'spec_approval_gate', 'the spec gate', (v) => v.station_attempts.filter((a: Json) => a.station === 'answer_question' && a.status === 'succeeded').length === 3, 240_000);
    expect(spec.artifacts.prd).toMatchObject({ approved: true });
    const answers = spec.station_attempts.filter((a: Json) => a.station === 'answer_question');
    expect(answers).toHaveLength(3);
    expect(world.tracker.state.issue(key).labels).toContain('service:spec-pending');
    expect(await pinnedBuild(key)).toEqual({ behavior: 1, build: 'build-b' });
  });
});
