import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureContainerImage } from '../helpers/container-image';
import { startDevOnFreshData } from '../helpers/dev-on-fresh-data';
import { runServiceCommand, type FinishedCommand, type ServiceProcess } from '../helpers/service-process';
import { getJson } from '../helpers/webhooks';
import { projectRoot } from '../../src/temporal/temporal-cli-locator';
import type { SandboxSettings } from '../../src/sandbox/sandbox-settings';

type View = Record<string, any>;
const root = projectRoot();

/** The paragraphs of README ("The sandbox", "Bugs and task takeover") whose next ```sh block is a walk-through, in README order. */
const WALKTHROUGHS = {
  feature: 'A walk-through in the sandbox',
  bug: 'A bug in the sandbox',
  takeover: 'A task takeover in the sandbox',
} as const;
type Walkthrough = keyof typeof WALKTHROUGHS;

/** One command line of a README block: where it is, its words as a shell splits them, and its trailing comment. */
interface ReadmeCommand {
  lineNumber: number;
  /** The command as written, without its comment. */
  line: string;
  /** What follows `npx service sandbox ` on it (what the checks below name a step by). */
  text: string;
  words: string[];
  /** Its comment, with the comment lines that continue it below. */
  comment: string;
}

/**
 * Splits a line into words as a POSIX shell would without running anything: single quotes keep everything, double
 * quotes keep everything but `\` before `$`, `` ` ``, `"`, `\`; a `#` that starts a word starts the comment. Anything
 * a shell would expand or treat as an operator is refused, since running the words as they stand would then differ.
 */
function shellWords(line: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const refuse = (what: string) => {
    throw new Error(`README line needs a shell (${what} at column ${i + 1}): ${line}`);
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i += 1;
    } else if (c === '#' && !inWord) {
      return { words, comment: line.slice(i + 1).trim() };
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) refuse('an unterminated single quote');
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i += 1;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '$' || line[i] === '`') refuse('an expansion inside double quotes');
        if (line[i] === '\\' && i + 1 < line.length && '$`"\\'.includes(line[i + 1]!)) {
          word += line[i + 1];
          i += 2;
        } else {
          word += line[i];
          i += 1;
        }
      }
      if (i >= line.length) refuse('an unterminated double quote');
      i += 1;
    } else if (c === '\\') {
      if (i + 1 >= line.length) refuse('a line continuation');
      word += line[i + 1];
      inWord = true;
      i += 2;
    } else if ('$`|&;<>(){}*?[~'.includes(c) && !(c === '~' && inWord)) {
      refuse(`'${c}'`);
    } else {
      word += c;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return { words, comment: '' };
}

/** The ```sh block that follows the paragraph starting with `opening`: its command lines (comment lines skipped). */
function readmeBlock(readme: string[], opening: string): ReadmeCommand[] {
  const paragraph = readme.findIndex((line) => line.startsWith(opening));
  if (paragraph < 0) throw new Error(`README.md has no paragraph starting "${opening}"`);
  const fence = readme.findIndex((line, n) => n > paragraph && line.startsWith('```'));
  if (fence < 0 || readme[fence] !== '```sh') throw new Error(`the paragraph "${opening}" (README line ${paragraph + 1}) is not followed by a \`\`\`sh block`);
  const commands: ReadmeCommand[] = [];
  for (let n = fence + 1; n < readme.length && !readme[n]!.startsWith('```'); n += 1) {
    const line = readme[n]!;
    if (line.trim() === '') continue;
    if (line.trim().startsWith('#')) {
      // A comment continued on a line of its own belongs to the command above.
      const previous = commands.at(-1);
      if (previous) previous.comment = `${previous.comment} ${line.trim().replace(/^#\s*/, '')}`.trim();
      continue;
    }
    const { words, comment } = shellWords(line);
    const written = line.replace(/\s+#.*$/, '').trim();
    commands.push({ lineNumber: n + 1, line: written, text: written.replace(/^npx service sandbox /, ''), words, comment });
  }
  return commands;
}

const runService = runServiceCommand;
type Ran = FinishedCommand;

/** A running `service dev --sandbox` on a data directory of its own. */
interface Sandbox {
  dev: ServiceProcess;
  dataDir: string;
  api: string;
  settings: SandboxSettings;
  ports: { temporal: number; gateway: number };
  /** What a command run as written needs to find this stack among the machine's: its own list of running stacks. */
  asWritten: NodeJS.ProcessEnv;
}

async function startSandbox(name: string): Promise<Sandbox> {
  const { dev, dataDir, ports, stacksFile } = await startDevOnFreshData(`readme-${name}`, ['dev', '--sandbox'], inject('temporalCliPath'));
  const settings = JSON.parse(readFileSync(join(dataDir, 'sandbox', 'sandbox.json'), 'utf8')) as SandboxSettings;
  return { dev, dataDir, api: `http://127.0.0.1:${ports.gateway}`, settings, ports, asWritten: { SERVICE_STACKS_FILE: stacksFile } };
}

/** Stops `service dev` with Ctrl-C's signal and removes its data directory; resolves with its exit code. */
async function stopSandbox(sandbox: Sandbox | undefined): Promise<number | string | undefined> {
  if (!sandbox) return undefined;
  try {
    const code = await sandbox.dev.stop('SIGINT', 60_000);
    if (code !== 0) console.log(`service dev on ${sandbox.dataDir} stopped with ${code}:\n${sandbox.dev.output().split('\n').slice(-40).join('\n')}`);
    return code;
  } finally {
    rmSync(sandbox.dataDir, { recursive: true, force: true });
  }
}

async function executionView(sandbox: Sandbox, key: string): Promise<View | undefined> {
  const token = sandbox.settings.secrets.SERVICE_OPERATOR_TOKEN;
  const response = await getJson(`${sandbox.api}/api/v1/workflows/${encodeURIComponent(key)}/execution`, token);
  return response.status === 200 ? response.body : undefined;
}

const UNRESOLVED_EFFECTS = new Set(['pending', 'running', 'retryable_failure', 'indeterminate']);
const resting = (view: View) => ['waiting', 'blocked', 'completed'].includes(view.status)
  && !(view.effects as View[]).some((effect) => UNRESOLVED_EFFECTS.has(effect.status));
/** What changes while a ticket works: two equal fingerprints some seconds apart, both resting, are a settled ticket. */
const fingerprint = (view: View) => JSON.stringify([
  view.run_id, view.status, view.current_position, view.observations_received, view.retry_count,
  (view.station_attempts as View[]).length, (view.effects as View[]).map((effect) => `${effect.idempotency_key}:${effect.status}`),
]);

/**
 * Waits until the ticket took in what the command did (a new delivery counted, or a new run) and rests: waiting,
 * blocked or completed with no effect unresolved, unchanged for `quietMs`. A completed ticket that counts nothing
 * more (a merge after completion, which only the source host shows) is settled once it stayed so for a while.
 */
async function settle(sandbox: Sandbox, key: string, before: View | undefined, timeoutMs: number): Promise<View> {
  const quietMs = 3_000;
  const deadline = Date.now() + timeoutMs;
  const started = Date.now();
  let last: View | undefined;
  let since = 0;
  let lastPrint = '';
  while (Date.now() < deadline) {
    const view = await executionView(sandbox, key).catch(() => undefined);
    if (view) {
      const print = fingerprint(view);
      if (print !== lastPrint) {
        lastPrint = print;
        since = Date.now();
      }
      last = view;
      const tookItIn = !before || view.run_id !== before.run_id || view.observations_received > before.observations_received;
      const finishedBefore = before?.status === 'completed' && view.status === 'completed' && Date.now() - started > 15_000;
      if ((tookItIn || finishedBefore) && resting(view) && Date.now() - since >= quietMs) return view;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${key} did not settle within ${timeoutMs / 1000} s; its execution view:\n${JSON.stringify(last, null, 2)}`);
}

/** What `sandbox show` printed for a ticket, split into what the checks read. */
interface Shown {
  text: string;
  status: string;
  labels: string[];
  links: string;
  comments: Array<{ author: string; id: string; text: string }>;
  pulls: string;
}

function parseShow(text: string): Shown {
  const status = /· status (.+)$/m.exec(text)?.[1]?.trim() ?? '';
  const labels = (/^ {2}labels: (.*)$/m.exec(text)?.[1] ?? '').split(', ').filter((label) => label && label !== '(none)');
  const links = /^ {2}links: (.*)$/m.exec(text)?.[1] ?? '';
  const commentsPart = text.slice(text.indexOf('\nComments ('), text.lastIndexOf('\nPull requests ('));
  const comments = commentsPart.split(/^ {2}--- /m).slice(1).map((part) => {
    const header = /^(.*), \S+ \(comment (\d+)\)\n/.exec(part);
    return { author: header?.[1] ?? '', id: header?.[2] ?? '', text: part };
  });
  const pulls = text.slice(text.lastIndexOf('\nPull requests ('));
  return { text, status, labels, links, comments, pulls };
}

/** What a check may look at after a step settled. */
interface StepContext {
  ran: Ran;
  /** The execution view of the step's ticket once it settled (none for `show`). */
  view?: View;
  show(key: string): Promise<Shown>;
  /** Comments the service added to the step's ticket (by the comment ids before it): their header and text. */
  newComments(): Promise<string[]>;
  /** A ticket's fields as the tracker's REST API gives them. */
  issue(key: string): Promise<View>;
  /** A pull request of sandbox/app as the source host's REST API gives it. */
  pullRequest(number: number): Promise<View>;
  /** Any other GET of the source host's REST API below /repos/sandbox/app, as the reviewer. */
  sourceHost(path: string): Promise<any>;
}

/** The paragraph of README "Commands" whose ```sh block runs the operator commands beside the feature walk-through. */
const OPERATOR_BLOCK = 'A running ticket moves to another revision of its definition';

/** What README's operator block says of each line, checked on what it printed (stderr: which stack it used). */
const OPERATOR_CLAIMS: Array<{ verb: RegExp; check(ran: Ran, sandbox: Sandbox, view: () => Promise<View | undefined>): Promise<void> | void }> = [
  { verb: /^get-config SBX --models$/, check(ran) { expect(ran.stdout).toMatch(/generate_prd/); expect(ran.stdout).toMatch(/update_docs/); } },
  { verb: /^definitions publish /, check(ran) { expect(ran.stdout).toMatch(/^published feature r3 /m); } },
  { verb: /^definitions list$/, check(ran) { expect(ran.stdout).toMatch(/^\* feature r3 .*published/m); } },
  { verb: /^migrate SBX-1 --to 3$/, async check(ran, _sandbox, view) { expect((await view())?.definition?.revision).toBe(2); expect(ran.stdout).toContain('eligible'); } },
  {
    verb: /^migrate SBX-1 --to 3 --apply$/,
    async check(_ran, _sandbox, view) {
      const deadline = Date.now() + 60_000;
      while ((await view())?.definition?.revision !== 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
      expect((await view())?.definition?.revision, 'SBX-1 pinned to feature r3').toBe(3);
      expect((await view())?.current_position).toBe('prd_approval_gate');
    },
  },
  { verb: /^smoke-test$/, check(ran) { expect(ran.stdout).toMatch(/^smoke test passed$/m); } },
];

/**
 * Runs README's operator block as written (no --data-dir: each command finds the walk-through's stack through the
 * list of running stacks), while SBX-1 of the feature walk-through waits at its PRD gate; checks every quoted output
 * its comments promise (`...` stands for any text) and that each says on stderr which stack it used. Then, with a
 * second stack in the list, a command refuses and names both.
 */
async function runOperatorBlock(commands: ReadmeCommand[], sandbox: Sandbox): Promise<void> {
  const usingLine = `using the stack of ${sandbox.dataDir} (Temporal 127.0.0.1:${sandbox.ports.temporal}, gateway :${sandbox.ports.gateway})`;
  for (const command of commands) {
    expect(command.words.slice(0, 2), `README line ${command.lineNumber}`).toEqual(['npx', 'service']);
    const args = command.words.slice(2);
    const ran = await runService(args, sandbox.asWritten, 600_000);
    const where = `README line ${command.lineNumber}: ${command.line}\nexit ${ran.code}\nstdout:\n${ran.stdout.slice(-3000)}\nstderr:\n${ran.stderr.slice(-3000)}`;
    expect(ran.code, where).toBe(0);
    expect(ran.stderr, where).toContain(usingLine);
    for (const quoted of command.comment.matchAll(/"([^"]+)"/g)) {
      for (const part of quoted[1]!.split('...').map((p) => p.trim()).filter(Boolean)) expect(ran.stdout, where).toContain(part);
    }
    const claims = OPERATOR_CLAIMS.filter((claim) => claim.verb.test(args.join(' ')));
    expect(claims, `a check for ${where}`).toHaveLength(1);
    await claims[0]!.check(ran, sandbox, () => executionView(sandbox, 'SBX-1'));
  }
  const stacksFile = sandbox.asWritten.SERVICE_STACKS_FILE!;
  const listed = readFileSync(stacksFile, 'utf8');
  const other = { pid: process.pid, started_at: new Date().toISOString(), data_dir: '/elsewhere/.data', temporal_address: '127.0.0.1:1', namespace: 'default', gateway_url: 'http://127.0.0.1:2', sandbox: true };
  writeFileSync(stacksFile, JSON.stringify({ stacks: [...(JSON.parse(listed) as { stacks: unknown[] }).stacks, other] }));
  try {
    const refused = await runService(['definitions', 'list'], sandbox.asWritten);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('2 stacks of service dev are running; say which with --data-dir:');
    expect(refused.stderr).toContain(`--data-dir ${sandbox.dataDir} `);
    expect(refused.stderr).toContain('--data-dir /elsewhere/.data ');
    const named = await runService(['definitions', 'list', '--data-dir', sandbox.dataDir], sandbox.asWritten);
    expect(named.code, named.stderr).toBe(0);
  } finally {
    writeFileSync(stacksFile, listed);
  }
}

/** A few of the things a README comment promises about its step, checked on the simulated ticket and source host. */
interface Claim {
  walkthrough: Walkthrough;
  /** The step: its text after `npx service sandbox ` (or the start of it, with `prefix`). */
  step: string;
  prefix?: boolean;
  /** The nth step matching (1 = the first). */
  nth?: number;
  check(step: StepContext): Promise<void>;
}

const matches = (claim: Claim, command: ReadmeCommand) => (claim.prefix ? command.text.startsWith(claim.step) : command.text === claim.step);
/** The service's stage labels (`service:<stage>`; not managed, yolo or the fix and parent identities). */
const stageLabels = (shown: Shown) => shown.labels.filter((label) => /^service:[a-z-]+$/.test(label) && !['service:managed', 'service:yolo'].includes(label));
const succeeded = (view: View | undefined, station: string) => (view?.station_attempts as View[] | undefined ?? []).some((a) => a.station === station && a.status === 'succeeded');

const CLAIMS: Claim[] = [
  // "A walk-through in the sandbox": a feature.
  {
    walkthrough: 'feature', step: 'create-ticket "Export reports as CSV"',
    async check({ show, view, newComments }) {
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:prd-pending']);
      expect(await newComments()).toEqual([expect.stringContaining('## PRD for SBX-1')]);
      expect(view).toMatchObject({ current_position: 'prd_approval_gate', artifacts: { prd: { version: 1 } } });
    },
  },
  {
    walkthrough: 'feature', step: 'comment SBX-1 "! mention archived reports"',
    async check({ view, newComments }) {
      expect(view).toMatchObject({ current_position: 'prd_approval_gate', artifacts: { prd: { version: 2 } } });
      expect(await newComments()).toEqual([expect.stringContaining('## PRD for SBX-1 (revision 2)')]);
    },
  },
  {
    walkthrough: 'feature', step: 'comment SBX-1 "? is Excel in scope"',
    async check({ view, newComments }) {
      expect(view).toMatchObject({ current_position: 'prd_approval_gate', artifacts: { prd: { version: 2 } } });
      expect(succeeded(view, 'answer_question')).toBe(true);
      expect(await newComments()).toHaveLength(1);
    },
  },
  {
    walkthrough: 'feature', step: 'label SBX-1 service:prd-approved',
    async check({ show, view }) {
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:spec-pending']);
      expect(view).toMatchObject({ current_position: 'spec_approval_gate', artifacts: { prd: { approved: true }, spec: { version: 1 } } });
    },
  },
  {
    walkthrough: 'feature', step: 'label SBX-1 service:spec-approved',
    async check({ show, view, newComments }) {
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:plan-pending']);
      expect(view?.current_position).toBe('plan_approval_gate');
      expect(await newComments()).not.toHaveLength(0);
    },
  },
  {
    walkthrough: 'feature', step: 'approve SBX-1', nth: 1,
    async check({ show, view, issue }) {
      expect(view?.current_position).toBe('task_approval_gate');
      const epic = await show('SBX-2');
      expect(epic.text).toMatch(/^ {2}type Epic /m);
      // The plan's first epic was renamed by `/service update 1 summary="CSV exporter"` the step before.
      expect(epic.text).toMatch(/^SBX-2 {2}CSV exporter$/m);
      expect((await issue('SBX-2')).fields.parent?.key).toBe('SBX-1');
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:task-pending']);
    },
  },
  {
    walkthrough: 'feature', step: 'approve SBX-1', nth: 2,
    async check({ show, view, pullRequest }) {
      expect(view?.current_position).toBe('human_review_gate');
      expect((await show('SBX-1')).pulls).toMatch(/sandbox\/app#1 \[SBX-1\].*\n {4}open · service\/sbx-1 -> main/);
      expect((await pullRequest(1)).state).toBe('open');
    },
  },
  {
    walkthrough: 'feature', step: 'check SBX-1 --conclusion failure', prefix: true,
    async check({ view, newComments, sourceHost }) {
      expect(succeeded(view, 'attempt_ci_fix')).toBe(true);
      expect(await commitMessages(sourceHost, 1)).toEqual(expect.arrayContaining([expect.stringContaining('[SBX-1] fix: address CI failures (attempt 1)')]));
      expect(await newComments()).toEqual(expect.arrayContaining([expect.stringContaining('CI fix attempt 1/5')]));
    },
  },
  {
    walkthrough: 'feature', step: 'check SBX-1', nth: 1,
    async check({ view }) {
      expect(view?.current_position).toBe('human_review_gate');
    },
  },
  {
    walkthrough: 'feature', step: 'review SBX-1 "Name the rows"', prefix: true,
    async check({ view, sourceHost }) {
      expect(succeeded(view, 'implement_review')).toBe(true);
      // Changed and pushed, and the thread on SANDBOX_CHANGES/SBX-1.md line 1 answered.
      expect(await commitMessages(sourceHost, 1)).toEqual(expect.arrayContaining([expect.stringContaining('[SBX-1] review: address PR feedback')]));
      const thread = (await sourceHost('/pulls/1/comments')) as View[];
      const asked = thread.find((c) => c.path === 'SANDBOX_CHANGES/SBX-1.md' && String(c.body).includes('Name the rows'));
      expect(asked).toBeDefined();
      expect(thread.some((c) => c.in_reply_to_id === asked!.id && c.user?.login === 'service-bot')).toBe(true);
    },
  },
  {
    walkthrough: 'feature', step: 'check SBX-1', nth: 2,
    async check({ view }) {
      expect(view?.current_position).toBe('human_review_gate');
    },
  },
  {
    walkthrough: 'feature', step: 'approve SBX-1 --pr',
    async check({ show, view, issue }) {
      expect(view?.status).toBe('completed');
      expect(['Done', 'Closed']).toContain((await show('SBX-1')).status);
      // Every epic and task the walk-through created (SBX-2 on) is closed too.
      const created = await laterTickets(issue);
      expect(created.map((t) => t.type)).toEqual(expect.arrayContaining(['Epic', 'Task']));
      for (const ticket of created) expect(['Done', 'Closed'], `${ticket.key} (${ticket.type})`).toContain(ticket.status);
    },
  },
  {
    walkthrough: 'feature', step: 'merge SBX-1',
    async check({ show, pullRequest, sourceHost }) {
      expect((await show('SBX-1')).pulls).toMatch(/merged · service\/sbx-1 -> main/);
      expect((await pullRequest(1)).merged).toBe(true);
      expect(((await sourceHost('/commits/main')) as View).parents).toHaveLength(2);
    },
  },
  {
    walkthrough: 'feature', step: 'show SBX-1',
    async check({ ran }) {
      expect(ran.stdout).toMatch(/^SBX-1 {2}Export reports as CSV$/m);
      expect(ran.stdout).toMatch(/^ {2}labels: .*service:managed/m);
      expect(ran.stdout).toMatch(/merged · service\/sbx-1 -> main/);
      expect(ran.stdout).toContain('diff --git');
    },
  },
  // "A bug in the sandbox".
  {
    walkthrough: 'bug', step: 'create-ticket "Crash on save"', prefix: true,
    async check({ show, view, newComments }) {
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:triage-pending']);
      expect(await newComments()).toEqual([expect.stringMatching(/steps to reproduce/i)]);
      expect(view?.current_position).toBe('triage_gate');
    },
  },
  {
    walkthrough: 'bug', step: 'comment SBX-1 "! Steps:', prefix: true,
    async check({ show, newComments, view }) {
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:rca-pending']);
      expect(view?.current_position).toBe('rca_option_gate');
      expect(succeeded(view, 'analyze_bug')).toBe(true);
      const rca = (await newComments()).filter((c) => /Option 1/.test(c));
      expect(rca).toHaveLength(1);
      expect(rca[0]).toMatch(/Option 2/);
      expect(rca[0]).not.toMatch(/Option 3/);
    },
  },
  {
    walkthrough: 'bug', step: 'comment SBX-1 ">option 2"',
    async check({ show, view }) {
      expect(stageLabels(await show('SBX-1'))).toEqual(['service:plan-pending']);
      expect(view?.current_position).toBe('plan_approval_gate');
    },
  },
  {
    walkthrough: 'bug', step: 'approve SBX-1', nth: 1,
    async check({ show, view, pullRequest }) {
      expect(view?.current_position).toBe('human_review_gate');
      const task = await show('SBX-2');
      expect(task.text).toMatch(/^SBX-2 {2}Fix: Crash on save \(sandbox\/app\)$/m);
      expect(task.links).toContain('relates to SBX-1');
      const pull = await pullRequest(1);
      expect(pull.state).toBe('open');
      // "its body with the root cause and the release note" (pull-request-body.ts renders them as sections).
      expect(pull.body).toMatch(/^## Root cause$/m);
      expect(pull.body).toMatch(/^## Release note$/m);
    },
  },
  {
    walkthrough: 'bug', step: 'check SBX-1 --conclusion failure', prefix: true,
    async check({ view, newComments, sourceHost, pullRequest }) {
      expect(succeeded(view, 'attempt_ci_fix')).toBe(true);
      // The fix rewrites the description of the pull request: the root cause and the release note stay in it.
      const body = String((await pullRequest(1)).body);
      expect(body).toMatch(/^## Root cause$/m);
      expect(body).toMatch(/^## Release note$/m);
      expect(await commitMessages(sourceHost, 1)).toEqual(expect.arrayContaining([expect.stringContaining('fix: address CI failures (attempt 1)')]));
      expect(await newComments()).toEqual(expect.arrayContaining([expect.stringContaining('CI fix attempt 1/5')]));
    },
  },
  {
    walkthrough: 'bug', step: 'check SBX-1',
    async check({ view, pullRequest }) {
      expect(view?.current_position).toBe('human_review_gate');
      const body = String((await pullRequest(1)).body);
      expect(body).toMatch(/^## Root cause$/m);
      expect(body).toMatch(/^## Release note$/m);
    },
  },
  {
    walkthrough: 'bug', step: 'approve SBX-1 --pr',
    async check({ show, view, newComments }) {
      expect(view?.status).toBe('completed');
      expect(await newComments()).toEqual(expect.arrayContaining([expect.stringMatching(/release note/i)]));
      expect((await show('SBX-1')).status).toBe('Closed');
      expect((await show('SBX-2')).status).toBe('Closed');
    },
  },
  {
    walkthrough: 'bug', step: 'merge SBX-1',
    async check({ pullRequest }) {
      expect((await pullRequest(1)).merged).toBe(true);
    },
  },
  {
    walkthrough: 'bug', step: 'show SBX-2',
    async check({ ran }) {
      expect(ran.stdout).toMatch(/· status Closed$/m);
      expect(ran.stdout).toMatch(/^ {2}links: relates to SBX-1$/m);
    },
  },
  // "A task takeover in the sandbox", after the bug in the same sandbox (its key and pull request number follow the bug's).
  {
    walkthrough: 'takeover', step: 'create-ticket "Add a health endpoint"', prefix: true,
    async check({ show, view }) {
      expect(stageLabels(await show('SBX-3'))).toEqual(['service:plan-pending']);
      expect(view?.current_position).toBe('task_plan_approval_gate');
    },
  },
  {
    walkthrough: 'takeover', step: 'approve SBX-3',
    async check({ show, view }) {
      expect(succeeded(view, 'execute_task_changes')).toBe(true);
      expect(succeeded(view, 'run_qualitative_review')).toBe(true);
      expect((await show('SBX-3')).pulls).toMatch(/sandbox\/app#2 .*\n {4}open · service\/sbx-3 -> main/);
    },
  },
  {
    walkthrough: 'takeover', step: 'approve SBX-3 --pr',
    async check({ show, view, newComments }) {
      expect(view?.status).toBe('completed');
      expect(await newComments()).not.toHaveLength(0);
      expect((await show('SBX-3')).status).toBe('Closed');
    },
  },
  {
    walkthrough: 'takeover', step: 'merge SBX-3',
    async check({ pullRequest }) {
      expect((await pullRequest(2)).merged).toBe(true);
    },
  },
];

/** The name the service's comments carry in the sandbox's tracker. */
const SERVICE_AUTHOR = 'service';
/** Ticket keys the way the README writes them. */
const KEY = /^SBX-\d+$/;

async function rawShow(sandbox: Sandbox, key: string): Promise<string> {
  const ran = await runService(['sandbox', 'show', key, '--no-diff', '--data-dir', sandbox.dataDir]);
  if (ran.code !== 0) throw new Error(`sandbox show ${key} exited ${ran.code}: ${ran.stderr}`);
  return ran.stdout;
}

async function trackerGet(sandbox: Sandbox, path: string): Promise<View> {
  const basic = Buffer.from(`service@sandbox.local:${sandbox.settings.secrets.TRACKER_API_TOKEN}`).toString('base64');
  const response = await fetch(`${sandbox.settings.urls.tracker}/rest/api/3${path}`, { headers: { authorization: `Basic ${basic}` } });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return await response.json() as View;
}

/** The ids of a ticket's comments in the tracker (none for a ticket that does not exist yet). */
async function commentIds(sandbox: Sandbox, key: string | undefined): Promise<Set<string>> {
  const ids = new Set<string>();
  if (!key) return ids;
  for (let startAt = 0; ;) {
    const page = await trackerGet(sandbox, `/issue/${encodeURIComponent(key)}/comment?startAt=${startAt}&maxResults=100`);
    for (const comment of page.comments as View[]) ids.add(String(comment.id));
    startAt += (page.comments as View[]).length;
    if ((page.comments as View[]).length === 0 || startAt >= page.total) return ids;
  }
}

/** What the reviewer reads from the source host's REST API below /repos/sandbox/app. */
async function sourceHostGet(sandbox: Sandbox, path: string): Promise<any> {
  const response = await fetch(`${sandbox.settings.urls.scmhost}/repos/sandbox/app${path}`, {
    headers: { authorization: `token ${sandbox.settings.secrets.reviewer_token}`, accept: 'application/vnd.github+json' },
  });
  if (!response.ok) throw new Error(`GET /repos/sandbox/app${path}: ${response.status} ${await response.text()}`);
  return await response.json() as unknown;
}

/** The summary of every ticket of the sandbox's project from SBX-2 on, with its status (the tracker's REST API). */
async function laterTickets(issue: StepContext['issue']): Promise<Array<{ key: string; type: string; status: string; parent?: string }>> {
  const tickets = [];
  for (let n = 2; ; n += 1) {
    const found = await issue(`SBX-${n}`).catch(() => undefined);
    if (!found) return tickets;
    tickets.push({ key: `SBX-${n}`, type: found.fields.issuetype?.name, status: found.fields.status?.name, parent: found.fields.parent?.key });
  }
}

const commitMessages = async (sourceHost: StepContext['sourceHost'], number: number): Promise<string[]> =>
  ((await sourceHost(`/pulls/${number}/commits`)) as View[]).map((c) => String(c.commit?.message ?? ''));

describe('README sandbox walk-throughs, each command run as written against service dev --sandbox', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  const blocks = Object.fromEntries(Object.entries(WALKTHROUGHS).map(([name, opening]) => [name, readmeBlock(readme, opening)])) as Record<Walkthrough, ReadmeCommand[]>;
  const timings: string[] = [];
  let bugSandbox: Sandbox | undefined;
  let bugWalked = false;

  beforeAll(() => {
    ensureContainerImage();
  }, 900_000);

  afterAll(async () => {
    await stopSandbox(bugSandbox);
    bugSandbox = undefined;
    if (timings.length) console.log(`README walk-throughs, seconds per command (until its ticket settled):\n${timings.join('\n')}`);
  }, 120_000);

  it('finds the three blocks: `npx service sandbox` lines a shell splits as this test does, each step a check names still there', () => {
    for (const [name, commands] of Object.entries(blocks)) {
      expect(commands.length, name).toBeGreaterThan(3);
      for (const command of commands) expect(command.words.slice(0, 3), `README line ${command.lineNumber}`).toEqual(['npx', 'service', 'sandbox']);
      expect(commands[0]!.words[3], name).toBe('create-ticket');
    }
    expect(shellWords(`a '/service update 1 summary="CSV exporter"' "x\\"y" b\\ c # d`)).toEqual({ words: ['a', '/service update 1 summary="CSV exporter"', 'x"y', 'b c'], comment: 'd' });
    expect(() => shellWords('a $HOME')).toThrow(/needs a shell/);
    expect(() => shellWords('a "$HOME"')).toThrow(/needs a shell/);
    const operator = readmeBlock(readme, OPERATOR_BLOCK);
    for (const command of operator) {
      expect(command.words.slice(0, 2), `README line ${command.lineNumber}`).toEqual(['npx', 'service']);
      expect(OPERATOR_CLAIMS.filter((claim) => claim.verb.test(command.words.slice(2).join(' '))), `a check for README line ${command.lineNumber}`).toHaveLength(1);
    }
    expect(operator.map((c) => c.words[2])).toEqual(expect.arrayContaining(['get-config', 'definitions', 'migrate', 'smoke-test']));
    for (const claim of CLAIMS) {
      const steps = blocks[claim.walkthrough].filter((command) => matches(claim, command));
      expect(steps.length, `${claim.walkthrough}: ${claim.step}`).toBeGreaterThanOrEqual(claim.nth ?? 1);
    }
  });

  /** Runs one README block in order: every command exits 0 and its ticket settles before the next one runs. */
  async function walk(name: Walkthrough, sandbox: Sandbox, afterFirstStep?: () => Promise<void>): Promise<void> {
    const commands = blocks[name];
    const seen = new Map<Claim, number>();
    for (const [index, command] of commands.entries()) {
      const args = command.words.slice(3);
      const [verb, keyArg] = args;
      const key = verb === 'create-ticket' ? undefined : keyArg;
      if (key !== undefined) expect(key, `README line ${command.lineNumber}`).toMatch(KEY);
      const before = key && verb !== 'show' ? await executionView(sandbox, key) : undefined;
      const oldComments = await commentIds(sandbox, key);

      const started = Date.now();
      // As written: no --data-dir, the command finds the stack through the list of running stacks.
      const ran = await runService(['sandbox', ...args], sandbox.asWritten);
      let ticket = key ?? ran.stdout.trim();
      const failure = async (what: string, error?: unknown) => {
        const view = KEY.test(ticket) ? await executionView(sandbox, ticket).catch(() => undefined) : undefined;
        const shown = KEY.test(ticket) ? await rawShow(sandbox, ticket).catch((e: Error) => e.message) : '';
        return new Error([
          `${name} walk-through, README line ${command.lineNumber}: ${command.line}${command.comment ? `   # ${command.comment}` : ''}`,
          `ran: SERVICE_STACKS_FILE=${sandbox.asWritten.SERVICE_STACKS_FILE} node bin/run.js sandbox ${args.map((a) => (/^[\w:./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')}`,
          `${what}${error ? `: ${(error as Error).message}` : ''}`,
          `exit ${ran.code}; stdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`,
          `execution view of ${ticket}:\n${JSON.stringify(view, null, 2)}`,
          `sandbox show ${ticket} --no-diff:\n${shown}`,
          `service dev (last lines):\n${sandbox.dev.output().split('\n').slice(-30).join('\n')}`,
        ].join('\n'));
      };
      if (ran.code !== 0) throw await failure('the command did not exit 0');

      if (verb === 'create-ticket') {
        // The key it prints is the one the README goes on with (and the one its comment names).
        ticket = ran.stdout.trim();
        const next = commands.slice(index + 1).map((c) => c.words[4]).find((word) => word !== undefined && KEY.test(word));
        const promised = /^(SBX-\d+):/.exec(command.comment)?.[1];
        if (ticket !== next || (promised !== undefined && ticket !== promised)) {
          throw await failure(`create-ticket printed "${ticket}", the README goes on with ${next}${promised ? ` and its comment names ${promised}` : ''}`);
        }
      }

      let view: View | undefined;
      if (verb !== 'show') {
        try {
          view = await settle(sandbox, ticket, before, 600_000);
        } catch (error) {
          throw await failure('the ticket did not settle', error);
        }
        if (view.status === 'blocked') throw await failure(`the ticket blocked (${view.blocking?.code}: ${view.blocking?.message}), which the README does not say`);
      }
      timings.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(7)}  ${name}, line ${command.lineNumber}: ${command.text}`);
      expect(ran.stderr, `README line ${command.lineNumber}: which stack it acted in`).toContain(`using the stack of ${sandbox.dataDir} `);

      for (const claim of CLAIMS.filter((c) => c.walkthrough === name && matches(c, command))) {
        const nth = (seen.get(claim) ?? 0) + 1;
        seen.set(claim, nth);
        if (nth !== (claim.nth ?? 1)) continue;
        const step: StepContext = {
          ran, view,
          show: async (k) => parseShow(await rawShow(sandbox, k)),
          newComments: async () => parseShow(await rawShow(sandbox, ticket)).comments
            .filter((c) => c.author === SERVICE_AUTHOR && !oldComments.has(c.id)).map((c) => c.text),
          issue: (k) => trackerGet(sandbox, `/issue/${encodeURIComponent(k)}`),
          pullRequest: (number) => sourceHostGet(sandbox, `/pulls/${number}`),
          sourceHost: (path) => sourceHostGet(sandbox, path),
        };
        try {
          await claim.check(step);
        } catch (error) {
          throw await failure('what the README says of this step did not show', error);
        }
      }
      if (index === 0 && afterFirstStep) await afterFirstStep();
    }
    for (const claim of CLAIMS.filter((c) => c.walkthrough === name)) {
      expect(seen.get(claim) ?? 0, `the check of ${name} step "${claim.step}" #${claim.nth ?? 1} ran`).toBeGreaterThanOrEqual(claim.nth ?? 1);
    }
  }

  it('runs "A walk-through in the sandbox" (a feature from its PRD to the merge) on a fresh data directory', async () => {
    const sandbox = await startSandbox('feature');
    let walked = false;
    try {
      // README's operator commands run at the point its Commands section says: SBX-1 waiting at its PRD gate.
      await walk('feature', sandbox, () => runOperatorBlock(readmeBlock(readme, OPERATOR_BLOCK), sandbox));
      walked = true;
    } finally {
      const code = await stopSandbox(sandbox);
      if (walked) expect(code, 'service dev stopped by SIGINT').toBe(0);
    }
  }, 1_500_000);

  it('runs "A bug in the sandbox" on a fresh data directory', async () => {
    bugSandbox = await startSandbox('bug');
    await walk('bug', bugSandbox);
    bugWalked = true;
  }, 1_500_000);

  it('runs "A task takeover in the sandbox" after the bug in the same sandbox (its SBX-3 and pull request #2 follow the bug\'s)', async () => {
    const sandbox = bugSandbox;
    bugSandbox = undefined;
    if (!sandbox || !bugWalked) {
      await stopSandbox(sandbox);
      throw new Error('the takeover continues where the bug walk-through ended (SBX-3, pull request #2), and that walk-through did not finish');
    }
    let walked = false;
    try {
      await walk('takeover', sandbox);
      walked = true;
    } finally {
      const code = await stopSandbox(sandbox);
      if (walked) expect(code, 'service dev stopped by SIGINT').toBe(0);
    }
  }, 1_500_000);
});
