import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/containers/git-remote';
import { filesWithConflictMarkers, startBaseMerge } from '../../../src/containers/workspace';

const root = mkdtempSync(join(tmpdir(), 'base-merge-'));
const git = (cwd: string, ...args: string[]) => runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });

/** A repository with `main` and a ticket branch, cloned; `onMain` and `onBranch` change files on each side. */
async function scenario(name: string, onMain: Record<string, string>, onBranch: Record<string, string>): Promise<string> {
  const origin = join(root, `${name}-origin`);
  const clone = join(root, `${name}-clone`);
  await runGit(['init', '--quiet', '-b', 'main', origin]);
  writeFileSync(join(origin, 'APP.md'), 'app\n');
  await git(origin, 'add', '-A');
  await git(origin, 'commit', '--quiet', '-m', 'init');
  await git(origin, 'checkout', '--quiet', '-b', 'service/fd-1');
  for (const [file, text] of Object.entries(onBranch)) writeFileSync(join(origin, file), text);
  await git(origin, 'add', '-A');
  await git(origin, 'commit', '--quiet', '-m', 'branch work');
  await git(origin, 'checkout', '--quiet', 'main');
  if (Object.keys(onMain).length) {
    for (const [file, text] of Object.entries(onMain)) writeFileSync(join(origin, file), text);
    await git(origin, 'add', '-A');
    await git(origin, 'commit', '--quiet', '-m', 'main work');
  }
  await runGit(['clone', '--quiet', '--branch', 'service/fd-1', origin, clone]);
  return clone;
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('merging the base branch into the ticket branch', () => {
  it('says when there is nothing to merge', async () => {
    const dir = await scenario('none', {}, { 'feature.txt': 'f\n' });
    expect(await startBaseMerge(dir, 'main')).toEqual({ base: 'main', state: 'up_to_date', conflicts: [] });
  });

  it('stages a clean merge, and the commit records both parents', async () => {
    const dir = await scenario('clean', { 'other.txt': 'o\n' }, { 'feature.txt': 'f\n' });
    expect(await startBaseMerge(dir, 'main')).toEqual({ base: 'main', state: 'clean', conflicts: [] });
    await git(dir, 'commit', '--quiet', '-m', 'merge');
    expect((await git(dir, 'rev-list', '--parents', '-n', '1', 'HEAD')).trim().split(' ')).toHaveLength(3);
  });

  it('lists the conflicted files, and finds the markers until they are resolved', async () => {
    const dir = await scenario('conflict', { 'feature.txt': 'from main\n' }, { 'feature.txt': 'from the branch\n' });
    expect(await startBaseMerge(dir, 'main')).toEqual({ base: 'main', state: 'conflicts', conflicts: ['feature.txt'] });
    expect(readFileSync(join(dir, 'feature.txt'), 'utf8')).toContain('<<<<<<<');
    expect(await filesWithConflictMarkers(dir, ['feature.txt'])).toEqual(['feature.txt']);
    writeFileSync(join(dir, 'feature.txt'), 'from both\n');
    expect(await filesWithConflictMarkers(dir, ['feature.txt'])).toEqual([]);
  });
});
