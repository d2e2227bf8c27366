import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { performGitPush } from '../../../activities/git-effect-activities';
import { createProjectConfigActivities } from '../../../activities/project-config-activities';
import { proposalDeps } from '../../../activities/stations/planning/proposal-deps';
import { createPlanningStations } from '../../../activities/stations/planning-stations';
import { sha256 } from '../../../activities/stations/planning/document-stations';
import { stationFailureDetails } from '../../../activities/stations/station-failure';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { createGitRemotes, runGit } from '../../../src/containers/git-remote';
import { createModelClient } from '../../../src/models/model-client';
import { createScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import type { StationInput, StationResult } from '../../../workflows/runtime/station-types';

const TOKEN = 'ghp_proposalStationToken0123456789abcdef';

/**
 * generate_prd and generate_spec with proposal review on: the document is committed on the host in a clone of the
 * proposals repository (the GitHub simulator serving real git over smart HTTP) and asked to be pushed and opened as a
 * pull request; the push intent is run by the real git.push effect.
 */
describe('proposal review in the document stations', () => {
  let tracker: TrackerSimulator;
  let model: ModelSimulator;
  let github: ScmhostSimulator;
  let stations: ReturnType<typeof createPlanningStations>;
  let workDir: string;
  const remotes = () => createGitRemotes({ scmhostApiUrl: github.url, scmhostToken: TOKEN });
  const auth = { username: 'x-access-token', token: TOKEN };

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'proposal-stations-'));
    tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: ['PRP'] });
    model = await startModelSimulator();
    github = await startScmhostSimulator({ repositories: ['acme/api', 'acme/proposals'], tokens: { [TOKEN]: 'service-bot' } });
    const seed = join(workDir, 'seed');
    await runGit(['clone', '--quiet', `${github.url}/acme/proposals.git`, seed], { auth });
    writeFileSync(join(seed, 'README.md'), '# proposals\n');
    await runGit(['add', '.'], { cwd: seed });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed'], { cwd: seed });
    await runGit(['push', '--quiet', `${github.url}/acme/proposals.git`, 'HEAD:main'], { cwd: seed, auth });

    const env = {
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['planner'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'planner' }),
    };
    const client = createTrackerClient({ baseUrl: tracker.url, email: 'service@example.com', apiToken: 'token-value', retry: { maxAttempts: 1 } });
    const { checkProjectRepositories } = createProjectConfigActivities({ properties: client, requireProjectConfig: true, fallbackRepositories: [] });
    const scmhost = () => createScmhostClient({ token: TOKEN, baseUrl: github.url, timeoutMs: 5_000 });
    stations = createPlanningStations({
      tracker: client, properties: client, models: createModelClient({ env }), modelConfig: parseModelConfiguration(env).config!,
      repositories: checkProjectRepositories,
      proposals: proposalDeps({ requireProjectConfig: true, prdProposals: {}, container: { workDir } as never }, client, remotes(), scmhost),
    });
  }, 30_000);
  afterAll(async () => {
    await Promise.all([tracker?.close(), model?.close(), github?.close()]);
    rmSync(workDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    model.reset();
    const properties = tracker.state.project('PRP').properties;
    properties.clear();
    tracker.state.setProperty(properties, 'service.repos', ['acme/api']);
    tracker.state.setProperty(properties, 'service.prd_proposals_repo', 'acme/proposals');
  });

  function input(key: string, station: string, extra: Partial<StationInput> = {}): StationInput {
    return { ticket_key: key, project_key: 'PRP', issue_type: 'Feature', workflow_kind: 'feature', run_id: 'run-proposal-1', node: station, station, visit: 1, artifacts: {}, outputs: {}, token_budget: null, ...extra };
  }
  const feature = () => tracker.state.createIssue({ projectKey: 'PRP', issueType: 'Feature', summary: 'Export reports', description: 'Users want CSV exports.', labels: ['service:managed'] }).key;
  const prd = (markdown: string) => ({ content: JSON.stringify({ title: 'CSV export', markdown }) });
  const push = async (result: StationResult) => {
    const intent = result.effects!.find((e) => e.operation.kind === 'git.push')!;
    if (intent.operation.kind !== 'git.push') throw new Error('no push');
    return performGitPush({ remotes: remotes() }, intent.operation);
  };
  async function branchFiles(branch: string, path: string) {
    const clone = join(workDir, `check-${Date.now()}-${Math.random().toString(16).slice(2)}`);
    await runGit(['clone', '--quiet', '--branch', branch, `${github.url}/acme/proposals.git`, clone], { auth });
    const log = (await runGit(['log', '--format=%s', 'origin/main..HEAD'], { cwd: clone })).trim().split('\n').reverse();
    const text = await runGit(['show', `HEAD:${path}`], { cwd: clone });
    return { log, text };
  }

  it('commits the PRD to proposals/<KEY>/prd.md on service/prd/<key>, asks for the push and the pull request, and tells the ticket where it is', async () => {
    const key = feature();
    model.script(prd('## Problem\n\nExport reports as CSV files.'));
    const result = await stations.generate_prd(input(key, 'generate_prd'));

    const path = `proposals/${key}/prd.md`;
    const branch = `service/prd/${key.toLowerCase()}`;
    expect(result.data).toMatchObject({ artifact: 'prd', revision: 1, proposal: { repository: 'acme/proposals', branch, path } });
    expect(result.effects!.map((e) => [e.name, e.operation.kind, e.required])).toEqual([
      ['push_proposal', 'git.push', true],
      ['open_proposal_pr', 'scmhost.open_pr', true],
      ['post_prd_part_1', 'tracker.comment', true],
    ]);
    const open = result.effects![1]!.operation;
    expect(open).toMatchObject({ kind: 'scmhost.open_pr', repository: 'acme/proposals', head: branch, base: null, title: `[${key}] PRD: CSV export` });
    const note = result.effects![2]!.operation;
    expect(note.kind === 'tracker.comment' && note.body).toContain(`pull request on \`acme/proposals\` (branch \`${branch}\`, file \`${path}\`)`);
    expect(note.kind === 'tracker.comment' && note.body).not.toContain('Export reports as CSV files.');

    expect(await push(result)).toMatchObject({ status: 'succeeded' });
    const pushed = await branchFiles(branch, path);
    expect(pushed.log).toEqual([`[${key}] PRD`]);
    expect(pushed.text).toBe('# CSV export\n\n## Problem\n\nExport reports as CSV files.\n');
    expect(result.artifacts!.prd!.digest).toBe(sha256('# CSV export\n\n## Problem\n\nExport reports as CSV files.'));
  });

  it('revises on a review: the line comments on the revision reach the model and the revision is a second commit on the same branch', async () => {
    const key = feature();
    const branch = `service/prd/${key.toLowerCase()}`;
    const path = `proposals/${key}/prd.md`;
    model.script(prd('## Problem\n\nExport reports as CSV files.'));
    const first = await stations.generate_prd(input(key, 'generate_prd'));
    await push(first);
    // The pull request, as a person sees it, with a review on a line of the file.
    const repo = github.state.repo('acme', 'proposals');
    const head = (await runGit(['ls-remote', `${github.url}/acme/proposals.git`, `refs/heads/${branch}`], { auth })).split('\t')[0]!;
    const pull = github.state.createPull(repo, { title: `[${key}] PRD: CSV export`, head: branch, base: 'main' }, github.state.user('service-bot'));
    github.state.submitReview(repo, pull.number, { state: 'COMMENTED', body: 'Needs more', commitId: head, comments: [{ path, line: 5, body: 'Say which columns are exported.' }] }, github.state.user('octo'));

    model.script(prd('## Problem\n\nExport reports as CSV files with every column.'));
    const artifacts = { prd: { text: first.artifacts!.prd!.text, digest: first.artifacts!.prd!.digest, version: 1, updated_at: '2026-11-25T00:00:00Z' } };
    const second = await stations.generate_prd(input(key, 'generate_prd', { visit: 2, artifacts, request: { kind: 'feedback', text: 'Needs more' } }));

    const prompt = JSON.stringify(model.requests.at(-1)!.messages);
    expect(prompt).toContain('Needs more');
    expect(prompt).toContain(`${path}:5 (octo): Say which columns are exported.`);
    expect(second.data).toMatchObject({ revision: 2, revised: true, proposal: { branch } });
    const pushIntent = second.effects!.find((e) => e.operation.kind === 'git.push')!.operation;
    expect(pushIntent).toMatchObject({ base_sha: head });
    expect(await push(second)).toMatchObject({ status: 'succeeded' });
    const pushed = await branchFiles(branch, path);
    expect(pushed.log).toEqual([`[${key}] PRD`, `[${key}] PRD (revision 2)`]);
    expect(pushed.text).toContain('with every column');
  });

  it('writes the spec to design.md on service/spec/<key> under service.prd_proposals_path', async () => {
    const key = feature();
    tracker.state.setProperty(tracker.state.project('PRP').properties, 'service.prd_proposals_path', 'docs/rfcs');
    model.script({ content: JSON.stringify({ title: 'CSV export design', markdown: '## Design\n\nA streaming CSV writer.' }) });
    const prdText = '# CSV export\n\nExport reports.';
    const approved = { text: prdText, digest: sha256(prdText), version: 1, updated_at: '2026-11-25T00:00:00Z', approved: { digest: sha256(prdText), at: '2026-11-25T00:00:00Z' } };
    const result = await stations.generate_spec(input(key, 'generate_spec', { artifacts: { prd: approved } }));
    expect(result.data).toMatchObject({ proposal: { branch: `service/spec/${key.toLowerCase()}`, path: `docs/rfcs/${key}/design.md` } });
    await push(result);
    expect((await branchFiles(`service/spec/${key.toLowerCase()}`, `docs/rfcs/${key}/design.md`)).text).toContain('A streaming CSV writer.');
  });

  it('blocks with the property named when service.prd_proposals_repo is not owner/repo', async () => {
    const key = feature();
    tracker.state.setProperty(tracker.state.project('PRP').properties, 'service.prd_proposals_repo', 'just-a-name');
    const error = await stations.generate_prd(input(key, 'generate_prd')).catch((e: unknown) => e);
    expect(stationFailureDetails(error)).toMatchObject({ code: 'missing_project_config', message: expect.stringContaining('service.prd_proposals_repo of project PRP must be an owner/repo string') });
    expect(model.requests).toHaveLength(0);
  });

  it('posts the PRD to the ticket as before when proposal review is off', async () => {
    const key = feature();
    tracker.state.project('PRP').properties.delete('service.prd_proposals_repo');
    model.script(prd('## Problem\n\nExport reports as CSV files.'));
    const result = await stations.generate_prd(input(key, 'generate_prd'));
    expect(result.effects!.map((e) => e.operation.kind)).toEqual(['tracker.comment']);
    expect(result.data).not.toHaveProperty('proposal');
  });
});
