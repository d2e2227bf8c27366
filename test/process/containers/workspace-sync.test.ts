import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { removeTree } from '../../../src/containers/remove-tree';
import { commitWorkspace } from '../../../src/containers/workspace';
import { exposeWorkspace, leftBehind, syncWorkspaceIntoHostTree, WorkspaceSyncError } from '../../../src/containers/workspace-sync';
import { makeDeepTree } from '../../helpers/deep-tree';

const root = mkdtempSync(join(tmpdir(), 'workspace-sync-'));
const host = join(root, 'host');
const workspace = join(root, 'workspace');
const outside = join(root, 'outside.txt');
afterAll(() => removeTree(root));

const git = (...args: string[]) => execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: host, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

beforeEach(async () => {
  rmSync(host, { recursive: true, force: true });
  await removeTree(workspace);
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

  it('knows what stays behind', () => {
    expect(leftBehind('', '.git')).toBe(true);
    expect(leftBehind('a/b', '.Git')).toBe(true);
    expect(leftBehind('', '.service')).toBe(true);
    expect(leftBehind('src', '.service')).toBe(false);
    expect(leftBehind('', '.gitignore')).toBe(false);
  });
});

const up = (levels: number) => Array.from({ length: levels }, () => '..').join('/');
const DEEP = Array.from({ length: 20 }, (_, index) => `d${index + 1}`).join('/');

/** Links of what `git add --all` stages in the host tree that resolve (as `readlink -m` does) outside it. */
function stagedLinksLeaving(): string[] {
  git('add', '--all');
  const links = git('ls-files', '-s').split('\n').filter((line) => line.startsWith('120000 ')).map((line) => line.split('\t')[1]!);
  return links.filter((path) => {
    const resolved = execFileSync('readlink', ['-m', join(host, path)], { encoding: 'utf8' }).trim();
    return resolved !== host && !resolved.startsWith(`${host}/`);
  });
}

/** The host tree is still the seed commit: nothing was written, nothing removed. */
const hostUntouched = () => git('status', '--porcelain', '--untracked-files=all');

async function refusedWhole(expected: string): Promise<WorkspaceSyncError> {
  const error = await syncWorkspaceIntoHostTree(workspace, host).then(() => undefined, (thrown: unknown) => thrown);
  expect(error, 'the sync took a workspace the host cannot commit').toBeInstanceOf(WorkspaceSyncError);
  expect((error as Error).message).toContain(expected);
  return error as WorkspaceSyncError;
}

describe('links are judged by where they resolve in the tree the host commits', () => {
  it('refuses the chain of issue 41 (r climbs to the root, esc through r to /etc/shadow) and commits nothing that leads out', async () => {
    await exposeWorkspace(host, workspace);
    mkdirSync(join(workspace, DEEP), { recursive: true });
    symlinkSync(up(20), join(workspace, DEEP, 'r'));
    symlinkSync(`r/${up(20)}/etc/shadow`, join(workspace, DEEP, 'esc'));
    writeFileSync(join(workspace, 'README.md'), 'changed\n');
    // The attack is real: in the workspace, esc opens the host's /etc/shadow.
    expect(execFileSync('readlink', ['-m', join(workspace, DEEP, 'esc')], { encoding: 'utf8' }).trim()).toBe('/etc/shadow');
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.refused.map((r) => r.path)).toEqual([`${DEEP}/esc`]);
    expect(report.refused[0]!.reason).toContain('above the repository');
    expect(report.written.sort()).toEqual(['README.md', `${DEEP}/r`]);
    expect(lstatSync(join(host, DEEP, 'esc'), { throwIfNoEntry: false }), 'esc in the host tree').toBeUndefined();
    expect(stagedLinksLeaving()).toEqual([]);
  });

  it('refuses absolute targets, relative escapes, escapes through a directory link, links to links that leave, and loops', async () => {
    await exposeWorkspace(host, workspace);
    const links: Record<string, string> = {
      'abs': '/etc/passwd',
      'docs/rel': '../../outside.txt',
      'p/q/dl': '../..',
      'p/q/through-dir-link': 'dl/../../outside.txt',
      'hop': 'docs/rel',
      'loop-a': 'loop-b',
      'loop-b': 'loop-a',
      'self': 'self/x',
      'into-git': '.git/config',
    };
    mkdirSync(join(workspace, 'p', 'q'), { recursive: true });
    for (const [path, target] of Object.entries(links)) symlinkSync(target, join(workspace, path));
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.refused.map((r) => r.path).sort()).toEqual(['abs', 'docs/rel', 'hop', 'into-git', 'loop-a', 'loop-b', 'p/q/through-dir-link', 'self']);
    // The directory link itself lands on the root: it stays inside and is written.
    expect(report.written).toEqual(['p/q/dl']);
    expect(stagedLinksLeaving()).toEqual([]);
    expect(readFileSync(outside, 'utf8')).toBe('OUTSIDE-CANARY');
  });

  it('keeps a long chain that stays inside and a dangling link beneath the root, and refuses a dangling one that climbs out', async () => {
    await exposeWorkspace(host, workspace);
    mkdirSync(join(workspace, DEEP), { recursive: true });
    symlinkSync(up(20), join(workspace, DEEP, 'top'));
    symlinkSync(`${DEEP}/top/docs`, join(workspace, 'shortcut'));
    symlinkSync('top/shortcut/guide.md', join(workspace, DEEP, 'guide'));
    symlinkSync('not-yet/there.md', join(workspace, 'docs', 'dangling'));
    symlinkSync('not-yet/../../../outside.txt', join(workspace, 'docs', 'dangling-out'));
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.refused.map((r) => r.path)).toEqual(['docs/dangling-out']);
    expect(report.written.sort()).toEqual([`${DEEP}/guide`, `${DEEP}/top`, 'docs/dangling', 'shortcut']);
    expect(readFileSync(join(host, DEEP, 'guide'), 'utf8')).toBe('guide\n');
    expect(stagedLinksLeaving()).toEqual([]);
  });

  it('keeps a link the base branch already had that leaves the repository, and refuses the agent\'s new target for it', async () => {
    symlinkSync('/etc/hostname', join(host, 'host-out'));
    git('add', '--all');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'the project links out');
    await exposeWorkspace(host, workspace);
    writeFileSync(join(workspace, 'README.md'), 'changed\n');
    expect((await syncWorkspaceIntoHostTree(workspace, host)).refused).toEqual([]);
    expect(readlinkSync(join(host, 'host-out'))).toBe('/etc/hostname');
    rmSync(join(workspace, 'host-out'));
    symlinkSync('/etc/shadow', join(workspace, 'host-out'));
    const report = await syncWorkspaceIntoHostTree(workspace, host);
    expect(report.refused.map((r) => r.path)).toEqual(['host-out']);
    expect(readlinkSync(join(host, 'host-out'))).toBe('/etc/hostname');
    git('add', '--all');
    expect(git('diff', '--cached', '--name-only').trim()).toBe('README.md');
  });

  it('refuses the whole workspace, writing nothing, when the agent makes a link of the base branch leave', async () => {
    mkdirSync(join(host, 'sub', 'd'), { recursive: true });
    writeFileSync(join(host, 'sub', 'd', 'x'), 'x\n');
    symlinkSync('d/../../README.md', join(host, 'sub', 'l'));
    git('add', '--all');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'a link through a folder');
    await exposeWorkspace(host, workspace);
    writeFileSync(join(workspace, 'README.md'), 'changed\n');
    rmSync(join(workspace, 'sub', 'd'), { recursive: true });
    symlinkSync('..', join(workspace, 'sub', 'd'));
    await refusedWhole('"sub/l"');
    expect(hostUntouched()).toBe('');
  });
});

describe('a workspace host git cannot commit is refused whole, before anything is written', () => {
  const planted: Array<[string, (dir: string) => void, string]> = [
    ['.git.', (dir) => writeFileSync(join(dir, '.git.'), '[core]\n'), '".git."'],
    ['GIT~1/config', (dir) => { mkdirSync(join(dir, 'GIT~1')); writeFileSync(join(dir, 'GIT~1', 'config'), '[core]\n'); }, '"GIT~1"'],
    ['.GIT  (trailing spaces)', (dir) => mkdirSync(join(dir, 'docs', '.GIT  ')), '"docs/.GIT  "'],
    ['.git... in a folder', (dir) => writeFileSync(join(dir, 'docs', '.git...'), 'x'), '"docs/.git..."'],
    ['.g\u200cit (HFS ignorable)', (dir) => writeFileSync(join(dir, '.g\u200cit'), 'x'), '".g\\u{200c}it"'],
    ['.git::$INDEX_ALLOCATION', (dir) => mkdirSync(join(dir, '.git::$INDEX_ALLOCATION')), '".git::$INDEX_ALLOCATION"'],
    ['a .gitmodules link', (dir) => symlinkSync('docs/guide.md', join(dir, '.gitmodules')), '".gitmodules"'],
  ];
  for (const [what, plant, shown] of planted) {
    it(`refuses ${what}, naming it`, async () => {
      await exposeWorkspace(host, workspace);
      writeFileSync(join(workspace, 'README.md'), 'changed\n');
      plant(workspace);
      const error = await refusedWhole(shown);
      expect(error.recovery).toContain('service:retry');
      expect(hostUntouched()).toBe('');
    });
  }

  it('refuses a tree deeper than the bounds without touching its deep paths, and the next attempt can replace it', async () => {
    await exposeWorkspace(host, workspace);
    writeFileSync(join(workspace, 'README.md'), 'changed\n');
    makeDeepTree(join(workspace, 'docs'), 25);
    await refusedWhole('longer than 1024 bytes');
    expect(hostUntouched()).toBe('');
    // A retried station copies the host tree again over the deep workspace.
    await exposeWorkspace(host, workspace);
    expect(readFileSync(join(workspace, 'README.md'), 'utf8')).toBe('readme\n');
  });

  it('refuses more folders than the depth bound even with short names', async () => {
    await exposeWorkspace(host, workspace);
    mkdirSync(join(workspace, ...Array.from({ length: 70 }, () => 'a')), { recursive: true });
    await refusedWhole('more than 64 folders deep');
    expect(hostUntouched()).toBe('');
  });

  it('refuses a name that is not UTF-8, showing its bytes', async () => {
    await exposeWorkspace(host, workspace);
    writeFileSync(Buffer.concat([Buffer.from(`${workspace}/docs/`), Buffer.from([0x6e, 0xff, 0x0a])]), 'x');
    await refusedWhole('"docs/n\\xff\\x0a"');
    expect(hostUntouched()).toBe('');
  });

  it('checks the number of entries and bytes before writing anything', async () => {
    await exposeWorkspace(host, workspace);
    writeFileSync(join(workspace, 'README.md'), 'changed\n');
    for (let index = 0; index < 20; index += 1) writeFileSync(join(workspace, `zz-${index}.txt`), 'x');
    await expect(syncWorkspaceIntoHostTree(workspace, host, { maxEntries: 10 })).rejects.toThrow(/more than 10 entries/);
    await expect(syncWorkspaceIntoHostTree(workspace, host, { maxTotalBytes: 20 })).rejects.toThrow(/more than 20 bytes/);
    expect(hostUntouched()).toBe('');
  });

  it('turns host git\'s refusal to add a tree into a WorkspaceCommitError, the backstop for anything the checks miss', async () => {
    writeFileSync(join(host, '.git.'), '[core]\n');
    await expect(commitWorkspace(host, 'm')).rejects.toMatchObject({ name: 'WorkspaceCommitError', message: expect.stringContaining('.git.') });
  });
});
