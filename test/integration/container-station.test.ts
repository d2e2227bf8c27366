import { createServer, type Server } from 'node:http';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, existsSync, mkdirSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEffectActivities } from '../../activities/effect-activities';
import { createContainerStations, type ContainerStationDeps, type ContainerStationSpec } from '../../activities/stations/container-station';
import { createRebaseStation } from '../../activities/stations/code-change/rebase-station';
import type { ModelConnection } from '../../src/config/model-configuration';
import type { ServiceConfig } from '../../src/config/service-config';
import { createGitRemotes, runGit } from '../../src/containers/git-remote';
import type { GitRemotes } from '../../src/providers/git-remote-types';
import { podman, resolvePodmanAccount } from '../../src/containers/podman-account';
import { runContainer } from '../../src/containers/run-container';
import { containerWorkDir } from '../../src/containers/mount-access';
import { agentBundlePath } from '../../src/agent/bundle-agent';
import { createScmhostClient } from '../../src/providers/scmhost/scmhost-client';
import { createLogger } from '../../src/logging/logger';
import { startModelSimulator, type ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startGitLabSimulator } from '../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { parseRepositoryRegistry } from '../../src/config/repository-registry';
import { createGitLabRepositories } from '../../src/providers/gitlab/gitlab-repositories';
import { withGitLabForks } from '../../src/providers/gitlab/gitlab-fork';
import { gitIn } from '../../src/sandbox/scmhost-simulator/git-smart-http';
import type { EffectOperation } from '../../workflows/effects/effect-types';
import type { StationInput } from '../../workflows/runtime/station-types';
import { ensureContainerImage } from '../helpers/container-image';

const SCM_TOKEN = 'ghp_containerTestToken0123456789abcdefXYZ';
const OPENAI_KEY = 'sk-proxyonly-0123456789abcdefghijkl';
const TRACKER_TOKEN = 'tracker-token-never-in-containers-42';
const REPO = 'acme/app';

const logger = createLogger({ level: 'error' });
const statSyncMode = (path: string) => statSync(path).mode & 0o777;
const connection: ModelConnection = { name: 'sim', backend: 'openai-compatible', allowed_models: ['agent-model'], capabilities: ['tools'], max_output_tokens: 4096 } as unknown as ModelConnection;

function input(key: string, overrides: Partial<StationInput> = {}): StationInput {
  return {
    ticket_key: key, project_key: key.split('-')[0]!, issue_type: 'Task', workflow_kind: 'task' as StationInput['workflow_kind'],
    run_id: `run-${key.toLowerCase()}-0001`, node: 'execute_task_changes', station: 'implement', visit: 1,
    params: { repository: REPO }, artifacts: {}, outputs: {}, token_budget: 200_000, ...overrides,
  };
}

const spec: ContainerStationSpec = {
  skill: 'workspace-task',
  task: () => 'Change the greeting in hello.txt to "hello, containers" and write .service/notes.md describing the change.',
  outputs: () => ['.service/notes.md'],
  commitMessage: (i) => `[${i.ticket_key}] Change the greeting`,
};

describe('container stations with real podman, real git and the simulators', () => {
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let workDir: string;
  let hostServer: Server;
  let hostPort: number;
  const saved = { ...process.env };

  type StationExtra = { skillsRoot?: string; remotes?: GitRemotes; forkOf?: (r: string) => Promise<string | undefined>; agentBundle?: () => Promise<string>; spec?: ContainerStationSpec };
  function station(overrides: Partial<ServiceConfig['container']> = {}, extra: StationExtra = {}) {
    return createContainerStations(containerDeps(overrides, extra))(extra.spec ?? spec);
  }

  function containerDeps(overrides: Partial<ServiceConfig['container']> = {}, extra: StationExtra = {}): ContainerStationDeps {
    const config = {
      container: {
        image: 'service-dev:latest', memoryLimit: '1g', cpuLimit: 1, timeoutSeconds: 120, pidsLimit: 512, egressRepos: [], workDir,
        podmanUser: 'service-podman', agentMaxSteps: 20, agentCommandTimeoutSeconds: 60, ...overrides,
      },
      autoReview: { maxRetries: 3, pollIntervalSeconds: 0.5, recordPolledFiles: 'copy' as const },
    };
    return {
      config, logger, account: () => resolvePodmanAccount(), skillsRoot: extra.skillsRoot, forkOf: extra.forkOf, agentBundle: extra.agentBundle,
      remotes: extra.remotes ?? createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: SCM_TOKEN }),
      resolveModel: async () => ({ key: 'execute_task_changes', target: { connection: 'sim', model: 'agent-model' }, connection: { ...connection, base_url: model.url }, source: 'deployment_default' }) as never,
    };
  }

  beforeAll(async () => {
    ensureContainerImage();
    // Credentials the worker holds: none may reach a container.
    Object.assign(process.env, { SCMHOST_TOKEN: SCM_TOKEN, OPENAI_API_KEY: OPENAI_KEY, TRACKER_API_TOKEN: TRACKER_TOKEN });
    workDir = mkdtempSync(join(tmpdir(), 'container-station-'));
    chmodSync(workDir, 0o711);
    scm = await startScmhostSimulator({ tokens: { [SCM_TOKEN]: 'service-bot' }, repositories: [REPO] });
    model = await startModelSimulator();
    hostServer = createServer((_req, res) => res.end('host service'));
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', () => resolve()));
    hostPort = (hostServer.address() as { port: number }).port;
    // The repository gets a real file, pushed through the simulator's smart HTTP like any client would.
    await pushFile('seed', 'main', 'hello.txt', 'hello, world\n');
  }, 600_000);

  /** A person's push: clone, one file, commit, push to `branch`, over the simulator's smart HTTP. */
  async function pushFile(folder: string, branch: string, file: string, content: string): Promise<void> {
    const auth = { username: 'x-access-token', token: SCM_TOKEN };
    const clone = join(workDir, folder);
    await runGit(['clone', '--quiet', `${scm.url}/${REPO}.git`, clone], { auth });
    writeFileSync(join(clone, file), content);
    await runGit(['add', '.'], { cwd: clone });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', `add ${file}`], { cwd: clone });
    await runGit(['push', '--quiet', `${scm.url}/${REPO}.git`, `HEAD:${branch}`], { cwd: clone, auth });
  }

  afterAll(async () => {
    process.env = saved;
    await scm?.close();
    await model?.close();
    hostServer?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  /** The agent makes one change (a tool call), writes its notes and stops. */
  function scriptChange(change: { name: string; arguments: Record<string, unknown> }, notes: string): void {
    model.reset();
    model.script(
      { tool_call: { name: change.name, arguments: JSON.stringify(change.arguments) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: notes }) } },
      { content: 'Done.' },
    );
  }
  const scriptGreetingChange = (greeting: string, notes: string) =>
    scriptChange({ name: 'edit_file', arguments: { path: 'hello.txt', old_text: 'hello, world', new_text: greeting } }, notes);

  it('edits a file in a container, commits on the host and pushes exactly once, adopting the remote head on a second attempt', async () => {
    scriptGreetingChange('hello, containers', '# Notes\nChanged the greeting.\n');
    const result = await station()(input('ACME-1'));
    expect(result.outcome).toBe('changed');
    expect((result.data as any).files).toEqual(['hello.txt']);
    expect((result.data as any).outputs['.service/notes.md']).toContain('Changed the greeting');
    expect(result.usage!.input_tokens).toBeGreaterThan(0);
    const push = result.effects!.find((e) => e.name === 'push')!;
    expect(push.required).toBe(true);
    expect(push.operation).toMatchObject({ kind: 'git.push', repository: REPO, branch: 'service/acme-1', base_sha: null });
    // The token was never written into the workspace.
    const workspace = (push.operation as { workspace: string }).workspace;
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).not.toContain(SCM_TOKEN);

    const effects = createEffectActivities({ logger, git: { remotes: createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: SCM_TOKEN }) } });
    const key = 'ACME-1:run:execute_task_changes:1:push';
    const first = await effects.performEffect({ idempotency_key: key, attempt: 1, operation: push.operation });
    expect(first.status).toBe('succeeded');
    expect(first.evidence?.adopted).toBeFalsy();
    const bare = scm.git.repositoryPath(REPO);
    const head = (await gitIn(bare, ['rev-parse', 'refs/heads/service/acme-1'])).trim();
    expect(head).toBe((push.operation as { commit_sha: string }).commit_sha);
    expect(await gitIn(bare, ['show', 'service/acme-1:hello.txt'])).toBe('hello, containers\n');
    expect(await gitIn(bare, ['log', '-1', '--format=%s', 'service/acme-1'])).toBe('[ACME-1] Change the greeting\n');
    // The agent's outputs stay out of the commit.
    expect(await gitIn(bare, ['ls-tree', '-r', '--name-only', 'service/acme-1'])).not.toContain('.service');
    // The REST side of the simulator follows git.
    expect(scm.state.repo('acme', 'app').branches.get('service/acme-1')).toBe(head);

    // A worker killed after the push retries the attempt: the remote head is adopted, nothing is pushed again.
    const second = await effects.performEffect({ idempotency_key: key, attempt: 2, operation: push.operation });
    expect(second).toMatchObject({ status: 'succeeded', evidence: { adopted: true } });
    expect((await gitIn(bare, ['rev-list', '--count', 'service/acme-1'])).trim()).toBe('3');
    expect((await gitIn(bare, ['rev-parse', 'refs/heads/service/acme-1'])).trim()).toBe(head);
  });

  it('holds no credential, reaches no host port and still calls the model through the socket', async () => {
    model.reset();
    const temporalPort = inject('temporalAddress').split(':').pop();
    const probe = [
      'echo ENV; env | cut -d= -f1 | sort | tr "\\n" " "; echo; echo MOUNTS; awk \'{print $4, $5}\' /proc/self/mountinfo | grep -v -e " /proc" -e " /sys" -e " /dev"; echo FILES;',
      // Each secret split in two quoted halves: the proxy redacts credentials in model answers, so a whole one would
      // reach the container as [REDACTED].
      `grep -rIl ${[SCM_TOKEN, OPENAI_KEY, TRACKER_TOKEN].map((s) => `-e '${s.slice(0, 8)}''${s.slice(8)}'`).join(' ')} / --exclude-dir=proc --exclude-dir=sys 2>/dev/null | head -5; echo END-FILES;`,
      `for target in 127.0.0.1:${hostPort} 127.0.0.1:${temporalPort} 10.0.2.2:${hostPort}; do`,
      '  host=${target%:*}; port=${target#*:};',
      '  if timeout 3 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null; then echo "REACHED $target"; else echo "UNREACHABLE $target"; fi;',
      'done',
    ].join('\n');
    model.script(
      { tool_call: { name: 'run_command', arguments: JSON.stringify({ command: probe }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: 'probed\n' }) } },
      { content: 'Probed the container.' },
    );
    const result = await station()(input('ACME-2'));
    expect(result.outcome).toBe('no_changes');
    // Nothing to push: the station's folder (host tree and the container's copy) is gone already.
    expect(readdirSync(workDir).filter((name) => name.startsWith('acme-2-'))).toEqual([]);
    // The second model request carries the probe's output as the tool result.
    const toolMessage = model.requests[1]!.messages!.find((m) => m.role === 'tool');
    const output = String(toolMessage?.content);
    expect(output).toContain('exit code 0');
    expect(output).toContain('MOUNTS');
    for (const secret of [SCM_TOKEN, OPENAI_KEY, TRACKER_TOKEN]) expect(output).not.toContain(secret);
    expect(output).toContain('FILES\nEND-FILES');
    // Only the workspace, the run folder and the agent are mounted from the host.
    expect(output).toMatch(/ \/workspace\n/);
    expect(output).toMatch(/ \/run\/service\n/);
    expect(output).toMatch(/ \/opt\/service\/agent\.cjs\n/);
    expect(output).not.toMatch(/SCMHOST|TRACKER_|OPENAI|ANTHROPIC|GOOGLE_|STORE_URL|TEMPORAL/);
    expect(output).toContain(`UNREACHABLE 127.0.0.1:${hostPort}`);
    expect(output).toContain(`UNREACHABLE 127.0.0.1:${temporalPort}`);
    expect(output).toContain(`UNREACHABLE 10.0.2.2:${hostPort}`);
    expect(output).not.toContain('REACHED');
    // The model call worked, and the credential was added by the proxy on the host side only.
    expect(model.received.every((r) => r.authorization === `Bearer ${OPENAI_KEY}`)).toBe(true);
    expect((result.data as any).model_calls.length).toBe(3);
  });

  it('works from a checkout under a private folder (mode 0700): the work folder moves and the agent bundle is staged in it', async () => {
    // A checkout in a root user's home: its agent bundle and its default work folder are out of the account's reach.
    const home = join(workDir, 'private-home');
    const checkout = join(home, 'checkout');
    mkdirSync(join(checkout, 'dist', 'agent'), { recursive: true });
    copyFileSync(await agentBundlePath(), join(checkout, 'dist', 'agent', 'agent.cjs'));
    chmodSync(home, 0o700);
    const chosen = containerWorkDir({ workDir: join(checkout, '.data', 'workspaces'), explicit: false, account: resolvePodmanAccount(), fallbackRoot: join(workDir, 'vls') });
    expect(chosen.moved).toContain('cannot be reached by the container account');
    scriptGreetingChange('hello, private checkout', 'notes\n');
    const result = await station({ workDir: chosen.workDir }, { agentBundle: async () => join(checkout, 'dist', 'agent', 'agent.cjs') })(input('ACME-13'));
    expect(result.outcome).toBe('changed');
    expect((result.data as any).files).toEqual(['hello.txt']);
  });

  it('runs a read-only station: reads its output, takes no change back, commits and pushes nothing, keeps no folder, and runs again clean', async () => {
    const readOnly: ContainerStationSpec = { ...spec, readOnly: true, outputs: () => ['.service/rca.json'], task: () => 'Analyze; write .service/rca.json.' };
    const rca = '{"summary":"the greeting is wrong"}';
    model.reset();
    model.script(
      { tool_call: { name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'hello, world', new_text: 'hello, read-only' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/rca.json', content: rca }) } },
      { content: 'Analyzed.' },
    );
    const first = await station({}, { spec: readOnly })(input('ACME-20', { node: 'analyze_bug', station: 'analyze_bug' }));
    expect(first.outcome).toBe('no_changes');
    expect((first.data as any).outputs['.service/rca.json']).toBe(rca);
    expect((first.data as any).commit_sha).toBeNull();
    expect((first.data as any).files).toEqual([]);
    expect(first.effects).toEqual([]);
    expect(readdirSync(workDir).filter((name) => name.startsWith('acme-20-'))).toEqual([]);
    expect(await gitIn(scm.git.repositoryPath(REPO), ['branch', '--list', 'service/acme-20'])).toBe('');

    // The same input again within the attempt (analyze_bug's retry): a fresh copy, without the first run's edit.
    model.reset();
    model.script(
      { tool_call: { name: 'run_command', arguments: JSON.stringify({ command: 'cat hello.txt; ls .service 2>&1' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/rca.json', content: rca }) } },
      { content: 'Analyzed again.' },
    );
    const second = await station({}, { spec: readOnly })(input('ACME-20', { node: 'analyze_bug', station: 'analyze_bug' }));
    expect(second.outcome).toBe('no_changes');
    const seen = String(model.requests[1]!.messages!.find((m) => m.role === 'tool')?.content);
    expect(seen).toContain('hello, world');
    expect(seen).not.toContain('hello, read-only');
    expect(seen).not.toContain('rca.json');
    expect(readdirSync(workDir).filter((name) => name.startsWith('acme-20-'))).toEqual([]);
  });

  it('kills a container that outlives CONTAINER_TIMEOUT, removes it and reports a clear error', async () => {
    model.reset();
    model.script({ tool_call: { name: 'run_command', arguments: JSON.stringify({ command: 'sleep 120' }) } }, { content: 'never reached' });
    const started = Date.now();
    const error = await station({ timeoutSeconds: 4 })(input('ACME-3')).then(() => undefined, (e: unknown) => e as { type?: string; message: string; details?: Array<{ code: string }> });
    expect(error?.type).toBe('StationFailure');
    expect(error?.details?.[0]?.code).toBe('container_timeout');
    expect(error?.message).toContain('CONTAINER_TIMEOUT (4 s)');
    expect(Date.now() - started).toBeLessThan(60_000);
    const left = await podman(resolvePodmanAccount(), ['ps', '--all', '--filter', 'label=service.ticket=ACME-3', '--format', '{{.Names}}']);
    expect(left.stdout.trim()).toBe('');
  });

  it('charges the next attempt what an interrupted attempt spent through the proxy, then removes the ledger', async () => {
    // The timeout test before this one keeps its ledger (no budget meter here) when its first model call settled
    // within its 4 s, as it does on an idle machine and not on a loaded one; only the ledgers made here count.
    const isLedger = (name: string) => /^spend-[0-9a-f]+\.jsonl$/.test(name);
    const earlier = new Set(readdirSync(workDir).filter(isLedger));
    const ledgers = () => readdirSync(workDir).filter((name) => isLedger(name) && !earlier.has(name));
    // The first attempt calls the model twice, then is cut off while its command runs (no usage reported).
    model.reset();
    model.script(
      { tool_call: { name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'hello, world', new_text: 'hello, again' }) }, usage: { prompt_tokens: 1000, completion_tokens: 100 } },
      { tool_call: { name: 'run_command', arguments: JSON.stringify({ command: 'sleep 120' }) }, usage: { prompt_tokens: 1000, completion_tokens: 100 } },
    );
    const first = await station({ timeoutSeconds: 30 })(input('ACME-9')).then(() => undefined, (e: unknown) => e as { details?: Array<{ code: string; usage?: unknown }> });
    expect(first?.details?.[0]?.code).toBe('container_timeout');
    expect(first?.details?.[0]?.usage).toBeUndefined();
    expect(ledgers()).toHaveLength(1);
    const ledger = join(workDir, ledgers()[0]!);
    expect(statSyncMode(ledger)).toBe(0o600);

    const reply = { usage: { prompt_tokens: 10, completion_tokens: 1 } };
    model.reset();
    model.script(
      { tool_call: { name: 'edit_file', arguments: JSON.stringify({ path: 'hello.txt', old_text: 'hello, world', new_text: 'hello, again' }) }, ...reply },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: '# Notes\n' }) }, ...reply },
      { content: 'Done.', ...reply },
    );
    const second = await station()(input('ACME-9'));
    expect(second.outcome).toBe('changed');
    expect(second.usage).toMatchObject({ input_tokens: 2030, output_tokens: 203 });
    expect(ledgers()).toEqual([]);
  });

  it('runs the reviewer pass, reruns the skill with its feedback and records every review cycle', async () => {
    const skillsRoot = join(workDir, 'skills');
    mkdirSync(join(skillsRoot, 'default', 'workspace-task'), { recursive: true });
    writeFileSync(join(skillsRoot, 'default', 'workspace-task', 'SKILL.md'), readFileSync(join(__dirname, '..', '..', 'skills', 'default', 'workspace-task', 'SKILL.md')));
    writeFileSync(join(skillsRoot, 'default', 'workspace-task', 'review.md'), '---\nmax_retries: 2\n---\nCheck that notes.md explains why.\n');
    model.reset();
    model.script(
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: 'changed\n' }) } },
      { content: 'Wrote notes.' },
      { content: 'REJECTED: the notes do not say why.' },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: 'changed because the ticket asked\n' }) } },
      { content: 'Explained why.' },
      { content: 'The notes are fine now. APPROVED' },
    );
    const result = await station({}, { skillsRoot })(input('ACME-4'));
    const review = (result.data as any).review;
    expect(review.verdict).toBe('APPROVED');
    expect(review.cycles.map((c: any) => [c.cycle, c.verdict, c.max_cycles])).toEqual([[1, 'REJECTED', 3], [2, 'APPROVED', 3]]);
    expect(review.cycles[0].feedback).toContain('do not say why');
    // The rerun saw the reviewer's feedback.
    expect(JSON.stringify(model.requests[3]!.messages)).toContain('do not say why');
    // copy mode keeps the polled files.
    const copied = join(workDir, 'review-records', 'ACME-4', 'execute_task_changes-1', 'implement');
    expect(existsSync(copied) && readdirSync(copied).sort()).toEqual(['review_cycle_1.json', 'review_cycle_2.json']);
  });

  it('pushes to the service account\'s fork in fork mode, and refuses to overwrite a branch that moved', async () => {
    scriptGreetingChange('hello, fork', 'fork\n');
    const result = await station()(input('ACME-5'));
    const push = result.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    const remotes = createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: SCM_TOKEN });
    const effects = createEffectActivities({ logger, git: { remotes, scmhost: () => createScmhostClient({ token: SCM_TOKEN, baseUrl: scm.url }) } });
    const forked = await effects.performEffect({ idempotency_key: 'ACME-5:fork', attempt: 1, operation: { ...push, mode: 'fork' } });
    expect(forked).toMatchObject({ status: 'succeeded', evidence: { ids: { repository: 'service-bot/app' } } });
    expect(await gitIn(scm.git.repositoryPath('service-bot/app'), ['show', 'service/acme-5:hello.txt'])).toBe('hello, fork\n');
    expect(await gitIn(scm.git.repositoryPath(REPO), ['branch', '--list', 'service/acme-5'])).toBe('');

    // A later visit in fork mode continues the branch on the fork and fast-forwards it.
    scriptChange({ name: 'write_file', arguments: { path: 'second.txt', content: 'second visit\n' } }, 'again\n');
    const again = await station({}, { forkOf: async () => 'service-bot/app' })(input('ACME-5', { visit: 2, params: { repository: REPO, change_request_mode: 'fork' } }));
    const secondPush = again.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    expect(secondPush).toMatchObject({ mode: 'fork', base_sha: push.commit_sha });
    expect(await effects.performEffect({ idempotency_key: 'ACME-5:fork:2', attempt: 1, operation: secondPush })).toMatchObject({ status: 'succeeded' });
    expect(await gitIn(scm.git.repositoryPath('service-bot/app'), ['log', '--format=%s', 'service/acme-5'])).toMatch(/^\[ACME-5\] Change the greeting\n\[ACME-5\] Change the greeting\n/);

    // A direct-mode visit works from no upstream branch; someone else pushes the branch on the upstream before its
    // push ran: the push is a precondition failure, not a force push. (A push that succeeded has no tree any more:
    // its station folder goes once the branch holds the commit, so this visit's push is a fresh one.)
    scriptGreetingChange('hello, direct', 'direct\n');
    const direct = await station()(input('ACME-5', { visit: 3 }));
    const directPush = direct.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    expect(directPush).toMatchObject({ mode: 'direct', base_sha: null });
    await pushFile('other', 'service/acme-5', 'other.txt', 'theirs\n');
    const theirs = (await gitIn(scm.git.repositoryPath(REPO), ['rev-parse', 'service/acme-5'])).trim();
    const refused = await effects.performEffect({ idempotency_key: 'ACME-5:direct', attempt: 1, operation: directPush });
    expect(refused.status).toBe('precondition_failure');
    expect(refused.error).toContain('moved to');
    expect((await gitIn(scm.git.repositoryPath(REPO), ['rev-parse', 'service/acme-5'])).trim()).toBe(theirs);
  });

  it('merges main into a fork-mode pull request: cleanly on the host, with conflicts in a container, always pushing to the fork and never over a branch that moved there', async () => {
    const remotes = createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: SCM_TOKEN });
    const client = await createScmhostClient({ token: SCM_TOKEN, baseUrl: scm.url });
    const effects = createEffectActivities({ logger, git: { remotes, scmhost: async () => client } });
    const fork = scm.git.repositoryPath('service-bot/app');
    const forkHead = async () => (await gitIn(fork, ['rev-parse', 'service/acme-6'])).trim();
    // The ticket branch as fork mode leaves it: a commit on the service account's fork and a pull request from there.
    scriptGreetingChange('hello, fork', 'fork\n');
    const implemented = await station()(input('ACME-6'));
    const implementPush = implemented.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    expect(await effects.performEffect({ idempotency_key: 'ACME-6:fork', attempt: 1, operation: { ...implementPush, mode: 'fork' } })).toMatchObject({ status: 'succeeded' });
    const pull = await client.createPullRequest({ owner: 'acme', repo: 'app' }, { title: '[ACME-6] greeting', body: '', head: 'service-bot:service/acme-6', base: 'main', draft: false });
    const rebase = createRebaseStation({ scmhost: async () => client, remotes, workDir, container: containerDeps() }).rebase!;
    const rebaseInput = (visit: number) => input('ACME-6', { node: 'rebase', station: 'rebase', visit, params: {}, pull_requests: [`${REPO}#${pull.number}`] });

    // Main moved on elsewhere: a clean merge, committed on the host and pushed to the fork's branch.
    await pushFile('main-moves', 'main', 'elsewhere.txt', 'main moved\n');
    const before = await forkHead();
    const clean = await rebase(rebaseInput(1));
    expect(clean.summary).toContain('merged main cleanly');
    const cleanPush = clean.effects![0]!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    expect(cleanPush).toMatchObject({ kind: 'git.push', repository: 'service-bot/app', branch: 'service/acme-6', base_sha: before, mode: 'direct' });
    expect(await effects.performEffect({ idempotency_key: 'ACME-6:rebase:1', attempt: 1, operation: cleanPush })).toMatchObject({ status: 'succeeded', evidence: { ids: { repository: 'service-bot/app' } } });
    expect(await gitIn(fork, ['show', 'service/acme-6:elsewhere.txt'])).toBe('main moved\n');
    expect((await gitIn(fork, ['log', '-1', '--format=%P', 'service/acme-6'])).trim().split(' ')).toHaveLength(2);
    expect(await gitIn(scm.git.repositoryPath(REPO), ['branch', '--list', 'service/acme-6'])).toBe('');

    // Main changed the line the branch changed: the agent resolves the conflict in a container that continued the
    // fork's branch, and the merge goes to the fork too.
    await pushFile('main-greets', 'main', 'hello.txt', 'hello, upstream\n');
    model.reset();
    model.script(
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'hello.txt', content: 'hello, fork and upstream\n' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/rebase.md', content: 'hello.txt: kept both greetings\n' }) } },
      { content: 'Resolved.' },
    );
    const afterClean = await forkHead();
    const conflicted = await rebase(rebaseInput(2));
    expect(conflicted.summary).toContain('conflicts in hello.txt resolved');
    const conflictPush = conflicted.effects!.find((e) => e.operation.kind === 'git.push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    expect(conflictPush).toMatchObject({ repository: 'service-bot/app', base_sha: afterClean, mode: 'direct' });
    expect(await effects.performEffect({ idempotency_key: 'ACME-6:rebase:2', attempt: 1, operation: conflictPush })).toMatchObject({ status: 'succeeded' });
    expect(await gitIn(fork, ['show', 'service/acme-6:hello.txt'])).toBe('hello, fork and upstream\n');
    expect(await gitIn(fork, ['show', 'service/acme-6:elsewhere.txt'])).toBe('main moved\n');

    // Someone pushes to the fork's branch after the rebase fetched it: the merge is refused, not forced over it.
    await pushFile('main-again', 'main', 'later.txt', 'later\n');
    const late = await rebase(rebaseInput(3));
    const latePush = late.effects![0]!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
    const theirs = join(workDir, 'fork-person');
    await runGit(['clone', '--quiet', '--branch', 'service/acme-6', `${scm.url}/service-bot/app.git`, theirs], { auth: { username: 'x-access-token', token: SCM_TOKEN } });
    writeFileSync(join(theirs, 'theirs.txt'), 'theirs\n');
    await runGit(['add', '.'], { cwd: theirs });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'theirs'], { cwd: theirs });
    await runGit(['push', '--quiet', `${scm.url}/service-bot/app.git`, 'HEAD:service/acme-6'], { cwd: theirs, auth: { username: 'x-access-token', token: SCM_TOKEN } });
    const moved = await forkHead();
    const refused = await effects.performEffect({ idempotency_key: 'ACME-6:rebase:3', attempt: 1, operation: latePush });
    expect(refused).toMatchObject({ status: 'precondition_failure', error: expect.stringContaining('moved to') });
    expect(await forkHead()).toBe(moved);
  });

  it('stops and removes a running container within seconds of cancellation (the kill switch)', async () => {
    const account = resolvePodmanAccount();
    const controller = new AbortController();
    const name = `service-cancel-test-${Date.now()}`;
    const beats: number[] = [];
    let abortedAt = 0;
    setTimeout(() => { abortedAt = Date.now(); controller.abort(); }, 3000);
    const run = await runContainer({
      account, timeoutSeconds: 120, signal: controller.signal, tickMs: 500, onTick: () => { beats.push(Date.now()); },
      spec: {
        name, image: 'service-dev:latest', memory: '256m', cpus: 1, pids: 64, labels: { 'service.ticket': 'CANCEL-1' },
        workspaceDir: workDir, runDir: workDir, agentPath: '/etc/hostname', egress: false, command: ['sleep', '120'],
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.timedOut).toBe(false);
    // About 2 s on an idle machine; podman itself slows down a lot on a loaded 2-core CI machine.
    expect(Date.now() - abortedAt).toBeLessThan(30_000);
    expect(beats.length).toBeGreaterThanOrEqual(2);
    const left = await podman(account, ['ps', '--all', '--filter', `name=${name}`, '--format', '{{.Names}}']);
    expect(left.stdout.trim()).toBe('');
  });

  it('works the same against GitLab through the repository registry connection', async () => {
    const gitlab = await startGitLabSimulator({ tokens: { 'glpat-registry-token-0123456789': 'service-bot' }, projects: ['group/web'] });
    try {
      const registry = parseRepositoryRegistry(JSON.stringify({
        connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_IT_TOKEN' } },
        repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'main' } },
      }));
      const remotes = createGitRemotes({ scmhostApiUrl: scm.url, registry, env: { GL_IT_TOKEN: 'glpat-registry-token-0123456789' } });
      scriptChange({ name: 'write_file', arguments: { path: 'CHANGELOG.md', content: '- a change\n' } }, 'gitlab\n');
      const result = await station({}, { remotes })(input('WEB-1', { params: { repository: 'web' } }));
      const push = result.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
      const effects = createEffectActivities({ logger, git: { remotes } });
      expect(await effects.performEffect({ idempotency_key: 'WEB-1:push', attempt: 1, operation: push })).toMatchObject({ status: 'succeeded' });
      expect(await gitIn(gitlab.git.repositoryPath('group/web'), ['show', 'service/web-1:CHANGELOG.md'])).toBe('- a change\n');
      expect(gitlab.state.projects.get('group/web')!.branches.get('service/web-1')).toBe(push.commit_sha);
      expect(await effects.performEffect({ idempotency_key: 'WEB-1:push', attempt: 2, operation: push })).toMatchObject({ status: 'succeeded', evidence: { adopted: true } });
    } finally {
      await gitlab.close();
    }
  });

  it('pushes to the service account\'s GitLab fork in fork mode and opens the merge request from there into the project', async () => {
    const token = 'glpat-fork-mode-token-0123456789';
    const gitlab = await startGitLabSimulator({ tokens: { [token]: 'service-bot' }, projects: ['group/web'] });
    try {
      const registry = parseRepositoryRegistry(JSON.stringify({
        connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_IT_TOKEN' } },
        repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'main', change_request_mode: 'fork' } },
      }));
      const env = { GL_IT_TOKEN: token };
      const remotes = createGitRemotes({ scmhostApiUrl: scm.url, registry, env });
      scriptChange({ name: 'write_file', arguments: { path: 'CHANGELOG.md', content: '- from the fork\n' } }, 'gitlab fork\n');
      const result = await station({}, { remotes })(input('WEB-2', { params: { repository: 'web' } }));
      const push = result.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
      expect(push).toMatchObject({ repository: 'web', mode: 'fork' });
      const effects = createEffectActivities({ logger, git: { remotes }, gitlab: createGitLabRepositories(registry, { env }) });
      // The service account has no fork yet: the push makes it, and the branch goes there, not to the project.
      expect(await effects.performEffect({ idempotency_key: 'WEB-2:push', attempt: 1, operation: push })).toMatchObject({ status: 'succeeded', evidence: { ids: { repository: 'service-bot/web' } } });
      expect(await gitIn(gitlab.git.repositoryPath('service-bot/web'), ['show', 'service/web-2:CHANGELOG.md'])).toBe('- from the fork\n');
      expect(gitlab.state.projects.get('group/web')!.branches.has('service/web-2')).toBe(false);
      expect(await effects.performEffect({ idempotency_key: 'WEB-2:push', attempt: 2, operation: push })).toMatchObject({ status: 'succeeded', evidence: { adopted: true } });

      const open = { kind: 'scmhost.open_pr' as const, repository: 'web', head: 'service/web-2', base: null, title: '[WEB-2] A change', body: 'Why.', mode: 'fork' as const };
      expect(await effects.performEffect({ idempotency_key: 'WEB-2:open', attempt: 1, operation: open })).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'group/web!1' } } });
      expect(await effects.performEffect({ idempotency_key: 'WEB-2:open', attempt: 2, operation: open })).toMatchObject({ status: 'succeeded', evidence: { adopted: true } });
      const [mr, ...others] = gitlab.state.projects.get('group/web')!.mergeRequests;
      expect(others).toEqual([]);
      expect([mr!.sourceProject?.path, mr!.sourceBranch, mr!.targetBranch]).toEqual(['service-bot/web', 'service/web-2', 'main']);
      expect([...gitlab.state.projects.keys()].sort()).toEqual(['group/web', 'service-bot/web']);

      // A later visit (review or CI fixes) continues the branch on the fork, found through the API, and fast-forwards it.
      const forks = withGitLabForks(remotes, createGitLabRepositories(registry, { env }));
      scriptChange({ name: 'write_file', arguments: { path: 'SECOND.md', content: 'second visit\n' } }, 'again\n');
      const again = await station({}, forks)(input('WEB-2', { visit: 2, params: { repository: 'web' } }));
      const secondPush = again.effects!.find((e) => e.name === 'push')!.operation as Extract<EffectOperation, { kind: 'git.push' }>;
      expect(secondPush).toMatchObject({ mode: 'fork', base_sha: push.commit_sha });
      expect(await effects.performEffect({ idempotency_key: 'WEB-2:push:2', attempt: 1, operation: secondPush })).toMatchObject({ status: 'succeeded', evidence: { ids: { repository: 'service-bot/web' } } });
      expect(await gitIn(gitlab.git.repositoryPath('service-bot/web'), ['log', '--format=%s', 'service/web-2'])).toMatch(/^\[WEB-2\] Change the greeting\n\[WEB-2\] Change the greeting\n/);
      expect(gitlab.state.projects.get('group/web')!.mergeRequests).toHaveLength(1);
    } finally {
      await gitlab.close();
    }
  });
});
