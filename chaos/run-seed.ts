/**
 * One seed of the fault campaign: a fresh world (the sandbox's simulators with real git, the Temporal dev server on
 * a SQLite file, the real worker and gateway), K tickets driven by the sandbox's person, faults from the seed, and
 * the verdict from the simulators' records and Temporal.
 */
import { mkdtempSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { runGit } from '../src/containers/git-remote';
import { PLAIN_PROCESS_AGENT_ENV } from '../src/containers/run-container';
import { adfToMarkdown } from '../src/providers/tracker/adf/adf-to-markdown';
import { IDEMPOTENCY_PROPERTY_KEY } from '../src/providers/tracker/tracker-client';
import { idempotencyKeyOf } from '../src/providers/scmhost/idempotency-marker';
import { startFaultyFront, startWebhookRelay, type FaultInjector } from '../src/sandbox/fault-injector';
import { isGitLabTicket, SandboxPerson } from '../src/sandbox/sandbox-person';
import { SANDBOX_BOT_LOGIN, SANDBOX_GITLAB_PROJECT, SANDBOX_GITLAB_TRACKER_PROJECT, SANDBOX_PERSON_EMAIL, SANDBOX_REPOSITORY, readSandboxSettings } from '../src/sandbox/sandbox-settings';
import { startSandbox } from '../src/sandbox/sandbox-stack';
import { parseDevStackConfig, planDevServer } from '../src/temporal/dev-stack-config';
import { projectRoot } from '../src/temporal/temporal-cli-locator';
import { ticketWorkflowId } from '../workflows/messages';
import { checkActionsReflected, historyMoments, type AcknowledgedAction, type HistoryMoment, type RawHistoryEvent } from './acknowledged-actions';
import { describeFault, planFaults, type FaultPlan, type VendorHost } from './fault-plan';
import { checkNoEndlessRetries, retryingActivities, type PendingActivity } from './endless-retries';
import { checkInvariants, type TicketOutcome, type Verdict, type WorldRecords } from './invariants';
import { createProcessSupervisor, type ProcessSupervisor } from './process-supervisor';
import { createPrng } from './prng';
import { describeAction, drawTicket, newProgress, nextAction, takeAction, type PersonAction, type TicketScript } from './ticket-scripts';

// The execution view is read as the API answers it (JSON); the fields used are checked where they are read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface SeedOptions {
  seed: number;
  tickets: number;
  light: boolean;
  cliPath: string;
  /** Give up on a ticket that has not moved for this long. */
  stuckAfterMs: number;
  /** The whole seed's limit. */
  deadlineMs: number;
  keep: boolean;
  log: (line: string) => void;
}

export interface TimelineEntry { atMs: number; what: string }

export interface SeedResult {
  seed: number;
  tickets: Array<{ key: string; kind: string }>;
  plan: FaultPlan;
  faultsFired: number;
  /** Blocks after vendor faults that the person's service:retry cleared. */
  blocksCleared: number;
  faultsApplied: { vendor: number; webhooks: { dropped: number; duplicated: number; delayed: number }; kills: number; secondWorkers: number };
  /** Activity attempts the tickets' histories show started by the second worker (by its identity, pid@host). */
  secondWorkerActivities: number;
  verdict: Verdict;
  /** The person's acknowledged actions checked against the workflows' histories. */
  actionsChecked: number;
  replayed: number;
  timeline: TimelineEntry[];
  durationMs: number;
  dataDir: string;
  /** The last lines of the worker's output, for a failing seed. */
  workerTail: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

const UNRESOLVED_EFFECTS = new Set(['pending', 'running', 'retryable_failure', 'indeterminate']);
const resting = (view: Json) => ['waiting', 'blocked', 'completed'].includes(view.status)
  && !((view.effects ?? []) as Json[]).some((effect) => UNRESOLVED_EFFECTS.has(effect.status));
const fingerprint = (view: Json) => JSON.stringify([
  view.run_id, view.status, view.current_position, view.observations_received, view.retry_count,
  (view.station_attempts as Json[] | undefined)?.length, ((view.effects ?? []) as Json[]).map((effect) => `${effect.idempotency_key}:${effect.status}`),
]);
let runtimeInstalled = false;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSeed(options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const rng = createPrng(options.seed);
  const timeline: TimelineEntry[] = [];
  const mark = (what: string) => timeline.push({ atMs: Date.now() - started, what });
  const scripts: TicketScript[] = Array.from({ length: options.tickets }, (_, i) => drawTicket(rng.fork(`ticket-${i}`), i + 1));
  // The span is about as long as the tickets take, so that the faults land while they move: a light seed's flows take
  // about a minute, in podman about two (seed 1 took 116 s on 2026-11-28; its first span of four minutes let two of
  // its three faults fall after the tickets had ended).
  const plan = planFaults(rng.fork('faults'), { spanMs: options.light ? 60_000 : 90_000, count: [2, 6] });
  const root = projectRoot();
  const dataDir = mkdtempSync(join(tmpdir(), `service-chaos-${options.seed}-`));
  chmodSync(dataDir, 0o711);
  const stateDir = join(dataDir, 'sandbox');
  const devPlan = planDevServer(parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8')), root, { dataDir, port: await freePort(), headless: true });
  const sandbox = await startSandbox({ stateDir, serviceStateExists: false, env: {} });
  const closers: Array<() => Promise<unknown>> = [() => sandbox.close()];
  let supervisor: ProcessSupervisor | undefined;
  let stopWatch: (() => void) | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    // The model behind a fault front of its own (it has no injector); the service is pointed at the front.
    const modelFront = await startFaultyFront({ upstream: sandbox.model!.url, errorBody: (status, message) => ({ error: { message, type: 'server_error', code: status } }) });
    closers.push(() => modelFront.close());
    const connections = JSON.parse(sandbox.env.MODEL_CONNECTIONS!) as Record<string, Json>;
    for (const connection of Object.values(connections)) connection.base_url = modelFront.url;

    const env: NodeJS.ProcessEnv = {
      ...sandbox.env,
      MODEL_CONNECTIONS: JSON.stringify(connections),
      TEMPORAL_ADDRESS: devPlan.address,
      TEMPORAL_NAMESPACE: devPlan.namespace,
      SERVICE_TASK_QUEUE: 'chaos',
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      // Set once the dev server is up (below). The workers' metrics ports are the system's choice: a port picked here
      // and bound later can be taken meanwhile (the dev server picks free ports for its own services at start).
      SERVICE_GATEWAY_PORT: '',
      SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
      SERVICE_WORKER_METRICS_PORT: '0',
      // The poller is what catches up with dropped webhooks: often, so a seed does not wait minutes for it.
      SERVICE_POLL_INTERVAL_SECONDS: '5',
      SERVICE_EFFECT_TIMEOUT_SECONDS: '15',
      SERVICE_SHUTDOWN_GRACE_SECONDS: '3',
      CONTAINER_WORK_DIR: join(dataDir, 'work'),
      CONTAINER_TIMEOUT: '300',
      LOG_LEVEL: 'info',
      ...(options.light ? { [PLAIN_PROCESS_AGENT_ENV]: '1' } : {}),
    };
    // The second worker is another host's: a metrics port and a work folder of its own.
    const worker2Env = { SERVICE_WORKER_METRICS_PORT: '0', CONTAINER_WORK_DIR: join(dataDir, 'work-2') };
    supervisor = createProcessSupervisor({ cliPath: options.cliPath, plan: devPlan, env, envOf: { worker2: worker2Env } });
    await supervisor.start('temporal');
    // The gateway's port is fixed for the seed (the relay sends to it, and it comes back on it after a kill): picked
    // after the dev server took its ports, and read by the supervisor when it starts the gateway.
    const gatewayPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    env.SERVICE_GATEWAY_PORT = String(gatewayPort);
    const relay = await startWebhookRelay({ target: gatewayUrl, odds: plan.webhooks, random: rng.fork('webhooks').next });
    closers.push(() => relay.close());
    sandbox.connect(relay.url);
    await Promise.all([supervisor.start('worker'), supervisor.start('gateway')]);
    stopWatch = supervisor.watch();
    const settings = readSandboxSettings(stateDir)!;
    const operatorToken = sandbox.env.SERVICE_OPERATOR_TOKEN!;
    const person = await SandboxPerson.connect(stateDir);
    const mainBefore = {
      github: (await runGit(['rev-parse', 'main'], { cwd: bareRepository(stateDir, 'github') })).trim(),
      gitlab: (await runGit(['rev-parse', 'main'], { cwd: bareRepository(stateDir, 'gitlab') })).trim(),
    };

    // Faults aim at the service's requests only: the person's own clicks carry the person's credentials.
    const personTracker = `^Basic ${Buffer.from(`${SANDBOX_PERSON_EMAIL}:sandbox`).toString('base64')}$`;
    const personScm = `^token ${settings.secrets.reviewer_token}$`;
    const injectors: Record<VendorHost, { faults: FaultInjector; unless: string }> = {
      tracker: { faults: sandbox.tracker.faults, unless: personTracker },
      scmhost: { faults: sandbox.scmhost.faults, unless: personScm },
      git: { faults: sandbox.scmhost.faults, unless: personScm },
      model: { faults: modelFront.faults, unless: '^$never' },
    };
    const vendorFaultsApplied = () => Object.entries(injectors).filter(([host]) => host !== 'git').reduce((sum, [, { faults }]) => sum + faults.applied.length, 0);
    let blocksCleared = 0;
    let faultsFired = 0;
    let kills = 0;
    let secondWorkers = 0;
    for (const { atMs, fault } of plan.faults) {
      timers.push(setTimeout(() => {
        faultsFired += 1;
        mark(`FAULT ${describeFault(fault)}`);
        if (fault.kind === 'kill') {
          kills += 1;
          void supervisor!.kill(fault.target, fault.downMs);
        } else if (fault.kind === 'second-worker') {
          secondWorkers += 1;
          // Stopped at its moment even if it is still starting (then it never polled: a start that failed).
          void supervisor!.start('worker2').catch((error: unknown) => mark(`second worker did not get ready: ${(error as Error).message.split('\n')[0]}`));
          timers.push(setTimeout(() => {
            mark(`FAULT second worker ${fault.stop}`);
            void supervisor!.stop('worker2', fault.stop);
          }, fault.upMs));
        } else {
          const target = injectors[fault.host];
          target.faults.enqueue({ ...fault.rule, match: { ...fault.rule.match, unlessHeader: { name: 'authorization', pattern: target.unless } } });
        }
      }, atMs));
    }

    const view = async (key: string): Promise<Json | undefined> => {
      try {
        const response = await fetch(`${gatewayUrl}/api/v1/workflows/${encodeURIComponent(key)}/execution`, { headers: { authorization: `Bearer ${operatorToken}` }, signal: AbortSignal.timeout(5_000) });
        return response.ok ? await response.json() as Json : undefined;
      } catch {
        return undefined;
      }
    };
    /**
     * A merge the source host refuses (another ticket's merge conflicts with this branch) is what a person answers
     * with `/service rebase` on the pull request; the merge is tried again once the ticket has settled.
     */
    /** What the simulators accepted from the person, checked against the workflows' histories at the end. */
    const acknowledged: AcknowledgedAction[] = [];
    const rebaseRequests: Record<string, number> = {};
    const askForRebaseOnGitLab = async (key: string, position: string): Promise<void> => {
      const api = `${settings.urls.gitlab}/api/v4/projects/${encodeURIComponent(SANDBOX_GITLAB_PROJECT)}/merge_requests`;
      const headers = { 'private-token': settings.secrets.reviewer_token, 'content-type': 'application/json' };
      const open = await (await fetch(`${api}?state=opened&per_page=100`, { headers })).json() as Json[];
      const mr = open.find((m) => m.source_branch === `service/${key.toLowerCase()}`);
      if (!mr) throw new Error(`${key}: no open merge request to rebase`);
      const answer = await fetch(`${api}/${mr.iid}/notes`, { method: 'POST', headers, body: JSON.stringify({ body: '/service rebase' }) });
      if (!answer.ok) throw new Error(`${key}: the note /service rebase answered ${answer.status}`);
      rebaseRequests[key] = (rebaseRequests[key] ?? 0) + 1;
      mark(`${key}: person: merge refused (not mergeable), wrote /service rebase on !${mr.iid}`);
      const note = await answer.json() as Json;
      acknowledged.push({ ticket: key, action: { kind: 'comment', text: '/service rebase' }, position, commentId: String(note.id), atMs: Date.now() - started });
    };
    const askForRebase = async (key: string, position: string): Promise<void> => {
      if (isGitLabTicket(key)) return askForRebaseOnGitLab(key, position);
      const pulls = await (await fetch(`${settings.urls.scmhost}/repos/${SANDBOX_REPOSITORY}/pulls?state=open&per_page=100`, { headers: { authorization: `token ${settings.secrets.reviewer_token}` } })).json() as Json[];
      const pull = pulls.find((p) => p.head?.ref === `service/${key.toLowerCase()}`);
      if (!pull) throw new Error(`${key}: no open pull request to rebase`);
      const answer = await fetch(`${settings.urls.scmhost}/repos/${SANDBOX_REPOSITORY}/issues/${pull.number}/comments`, {
        method: 'POST', headers: { authorization: `token ${settings.secrets.reviewer_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: '/service rebase' }),
      });
      if (!answer.ok) throw new Error(`${key}: commenting /service rebase answered ${answer.status}`);
      rebaseRequests[key] = (rebaseRequests[key] ?? 0) + 1;
      mark(`${key}: person: merge refused (not mergeable), commented /service rebase on #${pull.number}`);
      // Acknowledged like any other comment: it must reach the ticket and move it (into the rebase detour).
      const comment = await answer.json() as Json;
      acknowledged.push({ ticket: key, action: { kind: 'comment', text: '/service rebase' }, position, commentId: String(comment.id), atMs: Date.now() - started });
    };
    /**
     * Does what the person does; false when the action must be tried again after the ticket settles. `where` is the
     * place the ticket rested when the person acted (the reflection invariant asks that the ticket left it).
     */
    const act = async (key: string, action: PersonAction, where: { position: string; blocked?: boolean; afterCompletion?: boolean }, rebaseIfRefused = true): Promise<boolean> => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const answer: { commentId?: string; headSha?: string } = {};
          switch (action.kind) {
            case 'comment': answer.commentId = await person.comment(key, action.text); break;
            case 'label': await person.label(key, action.label, false); break;
            case 'check': answer.headSha = (await person.reportCheck(key, { name: 'build', conclusion: action.conclusion, summary: action.summary })).sha; break;
            case 'review': await person.requestChanges(key, { body: action.body, ...(action.line ? { line: { ...action.line, path: action.line.path.replace('<key>', key) } } : {}) }); break;
            case 'approve-pr': await person.approvePullRequest(key); break;
            case 'merge': await person.mergePullRequest(key); break;
          }
          mark(`${key}: person: ${describeAction(action)}`);
          acknowledged.push({ ticket: key, action, ...where, ...answer, atMs: Date.now() - started });
          return true;
        } catch (error) {
          // GitHub refuses a conflicting merge as "not mergeable"; GitLab with 405 Method Not Allowed.
          if (action.kind === 'merge' && (/not mergeable/.test((error as Error).message) || (isGitLabTicket(key) && /: 405 /.test((error as Error).message)))) {
            if (!rebaseIfRefused) {
              mark(`${key}: person: merge refused (not mergeable) after the ticket was done; the branch is the person's now`);
              return true;
            }
            await askForRebase(key, where.position);
            return false;
          }
          if (attempt >= 5) throw new Error(`${key}: the person could not ${describeAction(action)}: ${(error as Error).message}`);
          await sleep(1_000 * attempt);
        }
      }
    };

    const keys: string[] = [];
    for (const script of scripts) {
      const key = await person.createTicket({
        summary: script.summary, type: script.type, labels: script.labels, ...(script.description ? { description: script.description } : {}),
        ...(script.host === 'gitlab' ? { project: SANDBOX_GITLAB_TRACKER_PROJECT } : {}),
      });
      keys.push(key);
      mark(`${key}: created (${script.kind}, on ${script.host})`);
    }

    const outcomes: TicketOutcome[] = [];
    const drive = async (key: string, script: TicketScript): Promise<TicketOutcome> => {
      let progress = newProgress();
      let retries = 0;
      let lastPrint = '';
      let changedAt = Date.now();
      let actedOn = '';
      let last: Json | undefined;
      while (Date.now() - started < options.deadlineMs) {
        const current = await view(key);
        if (current) {
          last = current;
          const print = fingerprint(current);
          if (print !== lastPrint) { lastPrint = print; changedAt = Date.now(); }
          const quiet = Date.now() - changedAt;
          if (resting(current) && quiet >= 2_000 && print !== actedOn) {
            const position = String(current.current_position ?? '');
            if (current.status === 'completed') {
              // Approving can finish the ticket before the merge; the person still presses the button.
              const rest = script.review.slice(progress.reviewStep);
              // A merge conflict now is the person's: the service has handed the pull request over.
              if (rest.some((a) => a.kind === 'merge')) await act(key, { kind: 'merge' }, { position, afterCompletion: true }, false);
              return { key, expected: script.expect.status, draftEdits: script.draftEdits, status: 'completed', position };
            }
            if (current.status === 'blocked') {
              const blocking = `${current.blocking?.code ?? ''}: ${String(current.blocking?.message ?? '').slice(0, 300)}`;
              // A block is an expected answer to a vendor that kept failing, provided it says why and
              // service:retry clears it; a block with no vendor fault behind it, or one that keeps coming back, is not.
              if (vendorFaultsApplied() === 0 || retries >= 2) return { key, expected: script.expect.status, draftEdits: script.draftEdits, status: 'blocked', position, blocking: `${blocking}${retries ? ` (after ${retries} service:retry)` : ''}${vendorFaultsApplied() === 0 ? '; no vendor fault had been applied' : ''}` };
              retries += 1;
              blocksCleared += 1;
              mark(`${key}: blocked at ${position} (${blocking.slice(0, 160)}); person adds service:retry`);
              await act(key, { kind: 'label', label: 'service:retry' }, { position, blocked: true });
              actedOn = print;
              changedAt = Date.now();
              continue;
            }
            const action = nextAction(script, progress, position);
            if (action) {
              if (await act(key, action, { position })) progress = takeAction(script, progress, position);
              actedOn = print;
              changedAt = Date.now();
            }
          }
        }
        if (Date.now() - changedAt > options.stuckAfterMs) {
          const pending = ((last?.effects ?? []) as Json[]).filter((e) => UNRESOLVED_EFFECTS.has(e.status)).map((e) => `${e.name ?? e.idempotency_key}:${e.status}`);
          return { key, expected: script.expect.status, draftEdits: script.draftEdits, status: String(last?.status ?? 'unknown'), position: last?.current_position,
            stuck: `no progress for ${Math.round(options.stuckAfterMs / 1000)} s at ${last?.current_position ?? '?'} (${last?.status ?? 'no view'}${pending.length ? `; unresolved effects ${pending.join(', ')}` : ''}; next person action: ${(() => { const a = last ? nextAction(script, progress, String(last.current_position)) : undefined; return a ? describeAction(a) : 'none'; })()})` };
        }
        await sleep(500);
      }
      return { key, expected: script.expect.status, draftEdits: script.draftEdits, status: String(last?.status ?? 'unknown'), position: last?.current_position, stuck: `the seed's deadline passed at ${last?.current_position ?? '?'}` };
    };
    outcomes.push(...await Promise.all(keys.map((key, i) => drive(key, scripts[i]!))));
    for (const timer of timers) clearTimeout(timer);
    mark('all tickets ended; faults still planned are cancelled');

    // Quiesce: everything down comes back, held webhooks are delivered, then the records are read.
    for (const { faults } of Object.values(injectors)) faults.clear();
    await relay.drain();
    for (let i = 0; i < 60 && !(['temporal', 'worker', 'gateway'] as const).every((name) => supervisor!.running(name)); i += 1) await sleep(500);
    await sleep(3_000);

    // The workflows' end states and histories, from Temporal itself.
    const connection = await Connection.connect({ address: devPlan.address });
    const client = new Client({ connection, namespace: devPlan.namespace });
    const histories: Array<{ workflowId: string; history: unknown }> = [];
    const moments = new Map<string, HistoryMoment[]>();
    // Which worker started each activity attempt (the SDK's identity is pid@host): shows work landed on the second.
    const activityWorkers: string[] = [];
    for (const outcome of outcomes) {
      const handle = client.workflow.getHandle(ticketWorkflowId(outcome.key));
      const description = await handle.describe();
      const status = description.status.name.toLowerCase();
      // The person's view said completed; Temporal must agree (a running workflow resting at a gate is not done).
      if (outcome.status === 'completed' && status !== 'completed') outcome.status = `${status} (the view said completed)`;
      if (outcome.status !== 'completed' && !outcome.stuck) outcome.status = outcome.status === 'blocked' ? 'blocked' : status;
      const history = await handle.fetchHistory();
      histories.push({ workflowId: ticketWorkflowId(outcome.key), history });
      // The reflection check reads every run of the ticket, oldest first (a continue-as-new starts a new history).
      const runs = [history];
      for (let previous = firstRunBefore(history); previous && runs.length < 50; previous = firstRunBefore(runs[0]!)) {
        runs.unshift(await client.workflow.getHandle(ticketWorkflowId(outcome.key), previous).fetchHistory());
      }
      moments.set(outcome.key, runs.flatMap((run) => historyMoments((run.events ?? []) as RawHistoryEvent[])));
      for (const run of runs) activityWorkers.push(...(run.events ?? []).map((event) => event.activityTaskStartedEventAttributes?.identity ?? '').filter(Boolean));
    }
    // Every open workflow (a ticket resting at a gate, the poller's) must have no activity that keeps failing once
    // the faults are cleared; a candidate is looked at again after a grace period that covers the retry backoff.
    let pending = await pendingActivities(client);
    const graceSeconds = 60;
    for (let waited = 0; retryingActivities(pending).length && waited < graceSeconds; waited += 5) {
      await sleep(5_000);
      pending = await pendingActivities(client);
    }
    const endless = checkNoEndlessRetries(pending, graceSeconds);
    await connection.close();

    const records = { ...await gatherRecords(sandbox, stateDir, keys, mainBefore), rebaseRequests };
    const verdict = checkInvariants(records, outcomes);
    const reflected = checkActionsReflected(acknowledged, (ticket) => moments.get(ticket));
    verdict.violations.push(...reflected.violations, ...endless);

    const { DefaultLogger, Runtime, Worker } = await import('@temporalio/worker');
    // webpack's statistics of the replay bundle are noise on the campaign's console; warnings still show.
    if (!runtimeInstalled) {
      Runtime.install({ logger: new DefaultLogger('WARN') });
      runtimeInstalled = true;
    }
    let replayed = 0;
    // The worker's metrics sink, as nothing: sinks are not called during replay, but an unregistered one is logged.
    const ignored = { fn: () => undefined };
    const sinks = { serviceMetrics: { workflowStarted: ignored, workflowCompleted: ignored, workflowFailed: ignored, waitEnded: ignored, phaseEnded: ignored, ticketBlocked: ignored } };
    for await (const result of Worker.runReplayHistories({ workflowsPath: join(root, 'dist', 'workflows'), replayName: `chaos-${options.seed}`, sinks } as never, histories as never)) {
      replayed += 1;
      if (result.error) verdict.violations.push({ invariant: 'each history replays without nondeterminism', ticket: result.workflowId.replace(/^ticket-/, ''), detail: `${result.error.name}: ${result.error.message.slice(0, 500)}` });
    }

    const secondWorkerPids = supervisor.events.filter((e) => e.name === 'worker2' && e.what === 'started').map((e) => (e.detail ?? '').replace(/^pid /, ''));
    const webhookCount = (fate: string) => relay.records.filter((r) => r.fate === fate).length;
    const vendorApplied = vendorFaultsApplied();
    for (const [host, { faults }] of Object.entries(injectors)) {
      if (host === 'git') continue;
      for (const applied of faults.applied) mark(`applied on ${host}: ${applied.kind} ${applied.method} ${applied.path}`);
    }
    // Every webhook the relay did not pass straight through, so a failure shows which facts had to be polled.
    for (const record of relay.records) {
      if (record.fate !== 'forward') timeline.push({ atMs: record.at - started, what: `webhook ${record.fate}: ${record.event || '?'} to ${record.path} (gateway answered ${record.answers.join(', ') || 'nothing'})` });
    }
    // The supervisor's own record: when each process died, was killed and came back.
    for (const event of supervisor.events) timeline.push({ atMs: event.at - started, what: `process: ${event.name} ${event.what}${event.detail ? ` (${event.detail})` : ''}` });
    return {
      seed: options.seed,
      tickets: keys.map((key, i) => ({ key, kind: scripts[i]!.kind })),
      plan, faultsFired, blocksCleared,
      faultsApplied: { vendor: vendorApplied, kills, secondWorkers, webhooks: { dropped: webhookCount('drop'), duplicated: webhookCount('duplicate'), delayed: webhookCount('delay') } },
      secondWorkerActivities: activityWorkers.filter((identity) => secondWorkerPids.some((pid) => identity.startsWith(`${pid}@`))).length,
      verdict, actionsChecked: reflected.checked, replayed, timeline: timeline.sort((a, b) => a.atMs - b.atMs), durationMs: Date.now() - started, dataDir,
      workerTail: supervisor.output('worker').split('\n').slice(-60).join('\n'),
    };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    stopWatch?.();
    await supervisor?.stopAll().catch(() => undefined);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (!options.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** What the simulators hold, in the shape the invariant checks read. */
/** The bare git repository of the sandbox's GitHub repository or GitLab project. */
function bareRepository(stateDir: string, host: 'github' | 'gitlab'): string {
  return host === 'github'
    ? `${join(stateDir, 'git', ...SANDBOX_REPOSITORY.split('/'))}.git`
    : `${join(stateDir, 'gitlab-git', ...SANDBOX_GITLAB_PROJECT.split('/'))}.git`;
}

async function gatherRecords(sandbox: Awaited<ReturnType<typeof startSandbox>>, stateDir: string, keys: string[], mainBefore: Record<'github' | 'gitlab', string>): Promise<Omit<WorldRecords, 'rebaseRequests'>> {
  const serviceEmail = sandbox.env.TRACKER_USER_EMAIL;
  const issues: WorldRecords['issues'] = [...sandbox.tracker.state.issues.values()].map((issue) => ({
    key: issue.key, summary: issue.summary, issueType: issue.issueType, parentKey: issue.parentKey, labels: issue.labels,
    createdByService: issue.creator?.emailAddress === serviceEmail,
    links: issue.links.map((link) => ({ type: link.type, outwardKey: link.outwardKey, inwardKey: link.inwardKey })),
    comments: issue.comments.map((comment) => {
      const key = comment.properties.get(IDEMPOTENCY_PROPERTY_KEY) as { key?: string } | string | undefined;
      return {
        id: comment.id, byService: comment.author.emailAddress === serviceEmail,
        idempotencyKey: typeof key === 'string' ? key : key?.key, text: adfToMarkdown(comment.body),
      };
    }),
  }));
  const { state } = sandbox.scmhost;
  const pulls: WorldRecords['pulls'] = [];
  for (const [repo, list] of state.pulls) for (const pull of list) pulls.push({ repo, number: pull.number, headRef: pull.headRef, state: pull.state, merged: pull.merged });
  const pullComments = state.issueComments.map((c) => ({ repo: c.repo, number: c.number, byService: c.user.login === SANDBOX_BOT_LOGIN, idempotencyKey: idempotencyKeyOf(c.body) }));
  const reviewComments = state.reviewComments.map((c) => ({ repo: c.repo, id: c.id, inReplyToId: c.inReplyToId, byService: c.user.login === SANDBOX_BOT_LOGIN }));
  // GitLab: its merge requests as pull requests, and every note (thread replies too) as a comment with its marker.
  for (const project of sandbox.gitlab.state.projects.values()) {
    for (const mr of project.mergeRequests) {
      pulls.push({ repo: project.path, number: mr.iid, headRef: mr.sourceBranch, state: mr.state === 'opened' ? 'open' : 'closed', merged: mr.state === 'merged' });
      for (const note of mr.notes.filter((n) => !n.system)) pullComments.push({ repo: project.path, number: mr.iid, byService: note.author === SANDBOX_BOT_LOGIN, idempotencyKey: idempotencyKeyOf(note.body) });
    }
  }
  const branchCommits: Record<string, string[]> = {};
  for (const key of keys) {
    const branch = `service/${key.toLowerCase()}`;
    const host = isGitLabTicket(key) ? 'gitlab' : 'github';
    try {
      const log = await runGit(['log', '--format=%s', branch, '--not', mainBefore[host]], { cwd: bareRepository(stateDir, host) });
      branchCommits[key] = log.trim().split('\n').filter((subject) => subject.startsWith(`[${key}]`)).reverse();
    } catch {
      // No branch: the ticket never pushed (or its branch was deleted after the merge).
    }
  }
  return { issues, pulls, pullComments, reviewComments, branchCommits };
}

/** The pending activities of every running workflow in the seed's namespace, as Temporal describes them. */
async function pendingActivities(client: Client): Promise<PendingActivity[]> {
  const pending: PendingActivity[] = [];
  for await (const execution of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
    const description = await client.workflow.getHandle(execution.workflowId, execution.runId).describe().catch(() => undefined);
    for (const activity of description?.raw.pendingActivities ?? []) {
      pending.push({
        workflowId: execution.workflowId,
        activity: activity.activityType?.name ?? '?',
        attempt: activity.attempt ?? 1,
        ...(activity.lastFailure?.message ? { lastFailure: activity.lastFailure.message } : {}),
      });
    }
  }
  return pending;
}

/** The run this history continued from, when it began with a continue-as-new. */
function firstRunBefore(history: { events?: Array<{ workflowExecutionStartedEventAttributes?: { continuedExecutionRunId?: string | null } | null }> | null }): string | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
}
