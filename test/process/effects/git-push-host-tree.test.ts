import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { performGitPush } from '../../../activities/git-effect-activities';

const root = mkdtempSync(join(tmpdir(), 'git-push-host-tree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

/** A repository in `dir` with one commit, pushed to a bare origin; returns the commit. */
function repository(dir: string, bare: string): string {
  git(root, 'init', '--quiet', '--bare', '--initial-branch', 'main', bare);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', '--initial-branch', 'main');
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  git(dir, 'add', '--all');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'a');
  return git(dir, 'rev-parse', 'HEAD').trim();
}

describe('the git.push effect runs git only in a host tree', () => {
  it('refuses a workspace path that is not a host tree (a push recorded before the boundary), without running git there', async () => {
    const workspace = join(root, 'old', 'workspace');
    const bare = join(root, 'old-origin.git');
    const sha = repository(workspace, bare);
    // What a container could have planted: were git run in this tree, the hook would write the canary.
    const canary = join(root, 'old-canary');
    writeFileSync(join(workspace, '.git', 'hooks', 'pre-push'), `#!/bin/sh\ntouch ${canary}\n`, { mode: 0o755 });
    git(workspace, 'config', 'core.fsmonitor', `touch ${canary}`);
    const remotes = { remoteFor: () => ({ url: bare, changeRequestMode: 'direct' as const }) };
    const result = await performGitPush({ remotes }, { kind: 'git.push', repository: 'acme/app', branch: 'service/a-1', commit_sha: sha, base_sha: null, workspace, mode: 'direct' });
    expect(result.status).toBe('terminal_failure');
    expect(result.error).toMatch(/not a host-only tree.*service:retry/);
    expect(existsSync(canary)).toBe(false);
    expect(git(root, 'ls-remote', bare).trim()).toBe('');
  });

  it('pushes from a host tree, ignoring a planted repository-level fsmonitor and hooks path, then removes the station folder', async () => {
    const host = join(root, 'new', 'host');
    const bare = join(root, 'new-origin.git');
    const sha = repository(host, bare);
    const canary = join(root, 'new-canary');
    git(host, 'config', 'core.fsmonitor', `touch ${canary}`);
    mkdirSync(join(host, 'planted-hooks'));
    writeFileSync(join(host, 'planted-hooks', 'pre-push'), `#!/bin/sh\ntouch ${canary}\n`, { mode: 0o755 });
    git(host, 'config', 'core.hooksPath', join(host, 'planted-hooks'));
    const remotes = { remoteFor: () => ({ url: bare, changeRequestMode: 'direct' as const }) };
    const result = await performGitPush({ remotes }, { kind: 'git.push', repository: 'acme/app', branch: 'service/a-1', commit_sha: sha, base_sha: null, workspace: host, mode: 'direct' });
    expect(result.status).toBe('succeeded');
    expect(git(root, 'ls-remote', bare, 'refs/heads/service/a-1').split('\t')[0]).toBe(sha);
    expect(existsSync(canary)).toBe(false);
    // The station folder served its purpose once the branch holds the commit.
    expect(existsSync(join(root, 'new'))).toBe(false);
  });
});
