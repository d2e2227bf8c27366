import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/containers/git-remote';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import type { ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, WORLD_GITHUB_TOKEN, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const TRACKER_SECRET = 'proposal-tracker-secret';
const SCM_SECRET = 'proposal-scmhost-secret';
const TOKEN = 'proposal-operator-token';
type Json = Record<string, any>;

const doc = (title: string, markdown: string) => ({ content: JSON.stringify({ title, markdown }) });

/**
 * Proposal review end to end (REFERENCE "Source host conventions"): a Feature ticket in a project with
 * `service.prd_proposals_repo` gets its PRD as a pull request on the proposals repository (real git over the GitHub
 * simulator's smart HTTP), a review there revises it on the same branch, `!` on the ticket is ignored while the pull
 * request is open, and merging it approves the PRD and opens the spec's pull request. Real Temporal dev server,
 * worker and gateway; the tracker, GitHub and the model are simulators.
 */
describe('proposal review of the PRD and the spec', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let stack: ServiceStack;
  let workDir: string;
  const auth = { username: 'x-access-token', token: WORLD_GITHUB_TOKEN };

  beforeAll(async () => {
    world = await startWorld({
      name: 'proposal-review',
      tracker: { projects: ['PRV'], repos: ['acme/api'], properties: { 'service.prd_proposals_repo': 'acme/proposals' } },
      scm: { github: ['acme/api', 'acme/proposals'] },
      model: true,
      seedRepo: (repo) => ({ 'SEED.md': `# ${repo}\n` }),
      operatorToken: TOKEN,
      env: {
        TRACKER_WEBHOOK_SECRET: TRACKER_SECRET,
        SCMHOST_WEBHOOK_SECRET: SCM_SECRET,
        SCMHOST_KNOWN_REPOS: 'acme/api',
        SCMHOST_BOT_LOGIN: 'service-bot',
        SERVICE_EFFECT_TIMEOUT_SECONDS: '15',
        SERVICE_POLL_INTERVAL_SECONDS: '0',
      },
    });
    ({ tracker, scm, model, stack, workDir } = world);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  const proposals = () => scm.state.repo('acme', 'proposals');
  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body as Json;
  const timeline = async (key: string) => {
    const entries: Json[] = [];
    for (let cursor = 0; ;) {
      const page = (await getJson(`${stack.api}/api/v1/workflows/${key}/execution/timeline?cursor=${cursor}&limit=200`, TOKEN)).body as Json;
      entries.push(...(page.entries as Json[]));
      if (page.entries.length === 0 || page.next_cursor == null) return entries;
      cursor = page.next_cursor;
    }
  };
  const comments = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body));
  const pulls = (branch: string) => scm.state.pullsOf(proposals()).filter((p) => p.headRef === branch);
  const settled = (v: Json) => v.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));
  async function at(key: string, node: string, what: string, extra: (v: Json) => boolean = () => true): Promise<Json> {
    return eventually(async () => {
      const v = await execution(key);
      return v.current_position === node && (v.checkpoint?.is_paused || v.status === 'blocked') && settled(v) && extra(v) ? v : undefined;
    }, 90_000, `${key} at ${what}`).catch(async (error: Error) => { throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 3000)}`); });
  }
  async function branch(name: string, file: string): Promise<{ log: string[]; text: string }> {
    const clone = join(workDir, 'check', `${Date.now()}-${Math.random().toString(16).slice(2)}`);
    await runGit(['clone', '--quiet', '--branch', name, `${scm.url}/acme/proposals.git`, clone], { auth });
    return {
      log: (await runGit(['log', '--format=%s', 'origin/main..HEAD'], { cwd: clone })).trim().split('\n').reverse(),
      text: await runGit(['show', `HEAD:${file}`], { cwd: clone }),
    };
  }

  it('opens the PRD as a pull request, revises it on a review, ignores ! meanwhile, approves it on merge and opens the spec', async () => {
    const key = tracker.state.createIssue({ projectKey: 'PRV', issueType: 'Feature', summary: 'Export reports', description: 'Users want CSV exports.', labels: ['service:managed'] }).key;
    const prdBranch = `service/prd/${key.toLowerCase()}`;
    const prdFile = `proposals/${key}/prd.md`;
    model.script(doc('CSV export', '## Problem\n\nExport reports as CSV.'));
    await at(key, 'prd_approval_gate', 'the PRD gate');

    // The PRD is a pull request on the proposals repository; the ticket says where, with the pending label.
    expect(pulls(prdBranch).map((p) => [p.state, p.title])).toEqual([['open', `[${key}] PRD: CSV export`]]);
    const first = await branch(prdBranch, prdFile);
    expect(first).toEqual({ log: [`[${key}] PRD`], text: '# CSV export\n\n## Problem\n\nExport reports as CSV.\n' });
    expect(comments(key).some((c) => c.includes(prdBranch) && c.includes(prdFile) && c.includes('acme/proposals'))).toBe(true);
    expect(tracker.state.issue(key).labels).toContain('service:prd-pending');

    // A review with a comment on a line: the PRD is revised and pushed to the same branch, still one pull request.
    const pull = pulls(prdBranch)[0]!;
    model.script(doc('CSV export', '## Problem\n\nExport reports as CSV, with every column.'));
    scm.state.submitReview(proposals(), pull.number, { state: 'COMMENTED', body: 'Please be precise.', comments: [{ path: prdFile, line: 5, body: 'Which columns?' }] }, scm.state.user('octo-reviewer'));
    await at(key, 'prd_approval_gate', 'the revised PRD', (v) => v.artifacts.prd?.version === 2);
    const prompt = JSON.stringify(model.requests.at(-1)!.messages);
    expect(prompt).toContain('Please be precise.');
    expect(prompt).toContain(`${prdFile}:5 (octo-reviewer): Which columns?`);
    const revised = await branch(prdBranch, prdFile);
    expect(revised.log).toEqual([`[${key}] PRD`, `[${key}] PRD (revision 2)`]);
    expect(revised.text).toContain('with every column');
    expect(pulls(prdBranch).map((p) => [p.number, p.state])).toEqual([[pull.number, 'open']]);

    // `!` on the ticket while the proposal is open: ignored, with the reason on the timeline; nothing regenerated.
    const requests = model.requests.length;
    tracker.state.addComment(key, '! make it shorter');
    const ignored = await eventually(async () => (await timeline(key)).find((e) => e.kind === 'command_decision' && e.status === 'ignored' && /feedback \(!\) on the ticket is ignored/.test(e.summary)), 30_000, 'the ignored !');
    expect(ignored.summary).toBe(`feedback (!) on the ticket is ignored at prd_approval_gate while the proposal pull request acme/proposals#${pull.number} is open: review it there (review comments revise it, merging approves it)`);
    const still = await at(key, 'prd_approval_gate', 'the gate after the ignored !');
    expect(still.artifacts.prd.version).toBe(2);
    expect(model.requests.length).toBe(requests);

    // Merging approves the PRD; the spec follows as a pull request of its own.
    model.script(doc('CSV export design', '## Design\n\nA streaming CSV writer.'));
    scm.state.mergePull(proposals(), pull.number, scm.state.user('octo-reviewer'));
    const spec = await at(key, 'spec_approval_gate', 'the spec gate');
    expect(spec.artifacts.prd).toMatchObject({ version: 2, approved: true });
    const specBranch = `service/spec/${key.toLowerCase()}`;
    expect(pulls(specBranch).map((p) => [p.state, p.title])).toEqual([['open', `[${key}] Spec: CSV export design`]]);
    expect((await branch(specBranch, `proposals/${key}/design.md`)).text).toContain('A streaming CSV writer.');
    expect(tracker.state.issue(key).labels.filter((l) => /-pending$/.test(l))).toEqual(['service:spec-pending']);
  });
});
