/**
 * Issue "Promises to a newcomer kept", points 1 and 2: the simulated source host kept its git repositories in a
 * temporary folder, so a restart lost `main` and the ticket branch while scmhost.json still named them; and a merge
 * moved the REST view of `main` but not git. Here the sandbox stack (no Temporal) runs on a data directory, a person
 * pushes with real git over smart HTTP, the pull request is opened through REST, the sandbox restarts, and git itself
 * (`git ls-remote`, `git log`) shows that everything is still there; then the merge is a real merge commit.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/sandbox-stack';
import { readSandboxSettings, SANDBOX_REPOSITORY } from '../../../src/sandbox/sandbox-settings';
import { pushCommit, remoteHeads, remoteLog, remoteUrl } from './git-over-http';

type Json = Record<string, any>;

describe('the sandbox\'s source host keeps its git repositories in the data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-git-restart-'));
  const stateDir = join(dataDir, 'sandbox');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const rest = async (url: string, token: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: await response.json() as Json };
  };

  it('survives a restart with main, the branch and the pull request\'s commits, then merges with a real merge commit', async () => {
    const first = await startSandbox({ stateDir, serviceStateExists: false, env: {} });
    const botToken = first.env.SCMHOST_TOKEN!;
    let before: Map<string, string>;
    let commits: string[];
    try {
      const remote = remoteUrl(first.scmhost.url, SANDBOX_REPOSITORY, botToken);
      expect(existsSync(join(stateDir, 'git', 'sandbox', 'app.git'))).toBe(true);
      commits = [
        await pushCommit(remote, 'service/sbx-1', { 'src/report.ts': 'export const rows = [];\n' }, '[SBX-1] implement the tasks', { from: 'main' }),
        await pushCommit(remote, 'service/sbx-1', { 'docs/report.md': '# Reports\n' }, '[SBX-1] update the documentation'),
      ];
      const opened = await rest(`${first.scmhost.url}/repos/${SANDBOX_REPOSITORY}/pulls`, botToken, {
        method: 'POST', body: { title: '[SBX-1] Export reports', head: 'service/sbx-1', base: 'main', body: 'Two commits' },
      });
      expect(opened.status).toBe(201);
      expect(opened.body.head.sha).toBe(commits[1]);
      before = await remoteHeads(remote);
      expect(before.get('service/sbx-1')).toBe(commits[1]);
    } finally {
      await first.close();
    }

    const reports: string[] = [];
    const second = await startSandbox({ stateDir, serviceStateExists: true, env: {}, report: (line) => reports.push(line) });
    try {
      expect(reports.join('\n')).not.toContain('WARNING');
      expect(second.scmhost.gitCheck).toEqual({ problems: [], followed: [] });
      const remote = remoteUrl(second.scmhost.url, SANDBOX_REPOSITORY, second.env.SCMHOST_TOKEN!);
      // git itself: the same main, the same branch head, and the pull request's commits in its log.
      const after = await remoteHeads(remote);
      expect(after.get('main')).toBe(before.get('main'));
      expect(after.get('service/sbx-1')).toBe(commits[1]);
      expect((await remoteLog(remote, ['--format=%H %s', 'main..service/sbx-1'])).trim().split('\n')).toEqual([
        `${commits[1]} [SBX-1] update the documentation`,
        `${commits[0]} [SBX-1] implement the tasks`,
      ]);
      // The REST view agrees with git.
      const pull = await rest(`${second.scmhost.url}/repos/${SANDBOX_REPOSITORY}/pulls/1`, second.env.SCMHOST_TOKEN!);
      expect(pull.body).toMatchObject({ head: { sha: commits[1] }, commits: 2, changed_files: 2, additions: 2, deletions: 0 });
      expect((await rest(`${second.scmhost.url}/repos/${SANDBOX_REPOSITORY}/branches/main`, botToken)).body.commit.sha).toBe(after.get('main'));

      // The merge button, as `service sandbox merge` presses it (the reviewer's token).
      const reviewerToken = readSandboxSettings(stateDir)!.secrets.reviewer_token;
      const merged = await rest(`${second.scmhost.url}/repos/${SANDBOX_REPOSITORY}/pulls/1/merge`, reviewerToken, { method: 'PUT', body: {} });
      expect(merged.status).toBe(200);
      const mergeSha = merged.body.sha as string;
      const moved = await remoteHeads(remote);
      expect(moved.get('main')).toBe(mergeSha);
      expect((await remoteLog(remote, ['-1', '--format=%P', mergeSha])).trim().split(' ')).toEqual([after.get('main'), commits[1]]);
      const commit = await rest(`${second.scmhost.url}/repos/${SANDBOX_REPOSITORY}/commits/${mergeSha}`, botToken);
      expect(commit.status).toBe(200);
      expect(commit.body.parents.map((p: Json) => p.sha)).toEqual([after.get('main'), commits[1]]);
      expect(commit.body.commit.message).toBe('Merge pull request #1 from sandbox/service/sbx-1\n\n[SBX-1] Export reports');
      expect(commit.body.files.map((f: Json) => f.filename).sort()).toEqual(['docs/report.md', 'src/report.ts']);
      expect((await rest(`${second.scmhost.url}/repos/${SANDBOX_REPOSITORY}/pulls/1`, botToken)).body).toMatchObject({ merged: true, merge_commit_sha: mergeSha });
    } finally {
      await second.close();
    }

    // And the merge itself survives the next restart.
    const third = await startSandbox({ stateDir, serviceStateExists: true, env: {} });
    try {
      expect(third.scmhost.gitCheck.problems).toEqual([]);
      const pull = third.scmhost.state.pull(third.scmhost.state.repo('sandbox', 'app'), 1);
      const heads = await remoteHeads(remoteUrl(third.scmhost.url, SANDBOX_REPOSITORY, third.env.SCMHOST_TOKEN!));
      expect(heads.get('main')).toBe(pull.mergeCommitSha);
    } finally {
      await third.close();
    }
  }, 120_000); // three starts, git clones and pushes: slow on a loaded machine

  it('says so loudly when scmhost.json names commits its git repositories do not have', async () => {
    const dir = join(dataDir, 'lost');
    const first = await startSandbox({ stateDir: dir, serviceStateExists: false, env: {} });
    let head: string;
    try {
      head = await pushCommit(remoteUrl(first.scmhost.url, SANDBOX_REPOSITORY, first.env.SCMHOST_TOKEN!), 'service/sbx-1', { 'a.txt': 'a\n' }, 'work', { from: 'main' });
    } finally {
      await first.close();
    }
    // What an older version left behind: the state file without the repositories (they lived in a temporary folder).
    rmSync(join(dir, 'git'), { recursive: true, force: true });

    const reports: string[] = [];
    const second = await startSandbox({ stateDir: dir, serviceStateExists: true, env: {}, report: (line) => reports.push(line) });
    try {
      const text = reports.join('\n');
      expect(text).toContain('WARNING: scmhost.json names commits the source host\'s git repositories');
      expect(text).toContain(`service/sbx-1 at ${head.slice(0, 7)}`);
      expect(text).toContain('delete');
      expect(second.describe().join('\n')).toContain('WARNING');
    } finally {
      await second.close();
    }
  });

  it('removes the git repositories with the other simulator state when the Temporal database is new', async () => {
    const dir = join(dataDir, 'fresh');
    const first = await startSandbox({ stateDir: dir, serviceStateExists: false, env: {} });
    await pushCommit(remoteUrl(first.scmhost.url, SANDBOX_REPOSITORY, first.env.SCMHOST_TOKEN!), 'service/sbx-9', { 'b.txt': 'b\n' }, 'work', { from: 'main' });
    await first.close();
    const second = await startSandbox({ stateDir: dir, serviceStateExists: false, env: {} });
    try {
      expect([...(await remoteHeads(remoteUrl(second.scmhost.url, SANDBOX_REPOSITORY, second.env.SCMHOST_TOKEN!))).keys()]).toEqual(['main']);
    } finally {
      await second.close();
    }
  });
});
