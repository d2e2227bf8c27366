import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { exposeWorkspace, leftBehind, linkStaysInside, syncWorkspaceIntoHostTree, WorkspaceSyncError } from '../../../src/containers/workspace-sync';

const root = mkdtempSync(join(tmpdir(), 'workspace-sync-'));
const host = join(root, 'host');
const workspace = join(root, 'workspace');
const outside = join(root, 'outside.txt');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: host, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

beforeEach(() => {
  rmSync(host, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
  writeFileSync(outside, 'OUTSIDE-CANARY');
  mkdirSync(join(host, 'docs'), { recursive: true });
  git('init', '--quiet', '--initial-branch', 'main');
  writeFileSync(join(host, 'README.md'), 'readme\n');
  writeFileSync(join(host, 'docs', 'guide.md'), 'guide\n');
  symlinkSync('../README.md', join(host, 'docs', 'readme-link'));
  git('add', '--all');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed');
});

describe('the container gets a copy of the host tree, and the host takes back only data', () => {
  it('copies the tree with .git, keeping links as links', async () => {
    await exposeWorkspace(host, workspace);
    expect(readFileSync(join(workspace, 'README.md'), 'utf8')).toBe('readme\n');
    expect(readlinkSync(join(workspace, 'docs', 'readme-link'))).toBe('../README.md');
    expect(existsSync(join(workspace, '.git', 'HEAD'))).toBe(true);
  });

  it('takes changed, new, executable and removed files, and link targets as text', async () => {
    await exposeWorkspace(host, workspace);
    writeFileSync(join(workspace, 'README.md'), 'changed\n');
    writeFileSync(join(workspace, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(workspace, 'run.sh'), 0o755);
    rmSync(join(workspace, 'docs', 'guide.md'));
    symlinkSync('../run.sh', join(workspace, 'docs', 'run-link'));
    symlinkSync(outside, join(workspace, 'docs', 'outside-link'));
    symlinkSync('../../outside.txt', join(workspace, 'docs', 'escape-link'));
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.written.sort()).toEqual(['README.md', 'docs/run-link', 'run.sh']);
    expect(report.removed).toEqual(['docs/guide.md']);
    // Links that leave the repository name host paths: they are not taken.
    expect(report.refused.map((r) => r.path).sort()).toEqual(['docs/escape-link', 'docs/outside-link']);
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toBe('changed\n');
    expect(lstatSync(join(host, 'run.sh')).mode & 0o111).not.toBe(0);
    // The link is a link in the host tree too, with the container's target text: never read through.
    expect(lstatSync(join(host, 'docs', 'run-link')).isSymbolicLink()).toBe(true);
    git('add', '--all');
    expect(git('diff', '--cached', '--name-status').trim().split('\n').sort()).toEqual(['A\trun.sh', 'A\tdocs/run-link', 'D\tdocs/guide.md', 'M\tREADME.md'].sort());
    expect(git('show', ':docs/run-link')).toBe('../run.sh');
  });

  it('leaves every .git entry of the workspace and .service/ behind, so planted hooks and config never reach the host tree', async () => {
    await exposeWorkspace(host, workspace);
    const hostConfig = readFileSync(join(host, '.git', 'config'), 'utf8');
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n\tfsmonitor = touch /tmp/pwned\n');
    mkdirSync(join(workspace, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(workspace, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\ntouch /tmp/pwned\n', { mode: 0o755 });
    mkdirSync(join(workspace, 'sub', '.git'), { recursive: true });
    writeFileSync(join(workspace, 'sub', '.git', 'config'), '[core]\n\tfsmonitor = evil\n');
    writeFileSync(join(workspace, 'sub', 'file.txt'), 'sub file\n');
    mkdirSync(join(workspace, 'deep', '.GIT'), { recursive: true });
    mkdirSync(join(workspace, '.service'), { recursive: true });
    writeFileSync(join(workspace, '.service', 'notes.md'), 'notes\n');
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(readFileSync(join(host, '.git', 'config'), 'utf8')).toBe(hostConfig);
    expect(existsSync(join(host, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(host, 'sub', '.git'))).toBe(false);
    expect(readFileSync(join(host, 'sub', 'file.txt'), 'utf8')).toBe('sub file\n');
    expect(existsSync(join(host, 'deep', '.GIT'))).toBe(false);
    expect(existsSync(join(host, '.service'))).toBe(false);
    expect(report.written).not.toContain('.service/notes.md');
  });

  it('replaces the .git folder by a .git file pointing elsewhere without effect on the host tree', async () => {
    await exposeWorkspace(host, workspace);
    rmSync(join(workspace, '.git'), { recursive: true });
    writeFileSync(join(workspace, '.git'), `gitdir: ${root}\n`);
    await syncWorkspaceIntoHostTree(workspace, host);
    expect(lstatSync(join(host, '.git')).isDirectory()).toBe(true);
    expect(git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  });

  it('turns a folder of the host tree the container replaced by a link into the link, without writing through it', async () => {
    await exposeWorkspace(host, workspace);
    rmSync(join(workspace, 'docs'), { recursive: true });
    symlinkSync('README.md', join(workspace, 'docs'));
    await syncWorkspaceIntoHostTree(workspace, host);
    expect(lstatSync(join(host, 'docs')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toBe('readme\n');
  });

  it('keeps the host folder when the container replaced it by a link out of the repository', async () => {
    await exposeWorkspace(host, workspace);
    rmSync(join(workspace, 'docs'), { recursive: true });
    symlinkSync(root, join(workspace, 'docs'));
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.refused.map((r) => r.path)).toEqual(['docs']);
    expect(lstatSync(join(host, 'docs')).isDirectory()).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe('OUTSIDE-CANARY');
    expect(existsSync(join(root, 'guide.md'))).toBe(false);
  });

  it('refuses FIFOs and hard links (keeping the host version) and fails on a file over the limit', async () => {
    await exposeWorkspace(host, workspace);
    execFileSync('mkfifo', [join(workspace, 'pipe')]);
    rmSync(join(workspace, 'README.md'));
    execFileSync('ln', [join(workspace, 'docs', 'guide.md'), join(workspace, 'README.md')]);
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.refused.map((r) => r.path).sort()).toEqual(['README.md', 'docs/guide.md', 'pipe']);
    expect(readFileSync(join(host, 'README.md'), 'utf8')).toBe('readme\n');
    expect(existsSync(join(host, 'pipe'))).toBe(false);
    writeFileSync(join(workspace, 'big.bin'), Buffer.alloc(2048));
    await expect(syncWorkspaceIntoHostTree(workspace, host, { maxFileBytes: 1024, maxTotalBytes: 1 << 30, maxEntries: 1000 })).rejects.toThrow(WorkspaceSyncError);
  });

  it('tells links that stay inside the repository from those that leave it, by their text', () => {
    expect(linkStaysInside('docs/readme-link', '../README.md')).toBe(true);
    expect(linkStaysInside('a/b/c', '../../d')).toBe(true);
    expect(linkStaysInside('a/b', '../../d')).toBe(false);
    expect(linkStaysInside('link', '/etc/passwd')).toBe(false);
    expect(linkStaysInside('link', '')).toBe(false);
  });

  it('knows what stays behind', () => {
    expect(leftBehind('', '.git')).toBe(true);
    expect(leftBehind('a/b', '.Git')).toBe(true);
    expect(leftBehind('', '.service')).toBe(true);
    expect(leftBehind('src', '.service')).toBe(false);
    expect(leftBehind('', '.gitignore')).toBe(false);
  });
});
