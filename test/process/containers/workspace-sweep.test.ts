import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTree } from '../../../src/containers/remove-tree';
import { sweepStaleWorkspaces } from '../../../src/containers/workspace-sweep';
import { DEEP_FOLDER_NAME, makeDeepTree } from '../../helpers/deep-tree';

const workDir = mkdtempSync(join(tmpdir(), 'workspace-sweep-'));
afterAll(() => removeTree(workDir));

function age(path: string, hours: number): void {
  const time = new Date(Date.now() - hours * 3600_000);
  utimesSync(path, time, time);
}

function folder(path: string, ageHours: number): string {
  const full = join(workDir, path);
  mkdirSync(join(full, 'host'), { recursive: true });
  const time = new Date(Date.now() - ageHours * 3600_000);
  utimesSync(full, time, time);
  return full;
}

describe('sweeping stale station folders at worker start', () => {
  it('removes station, run and proposal folders untouched for a day, and keeps fresh ones, the staged agent and files', async () => {
    folder('sbx-1-implement_task-1-abcdefabcdef', 30);
    folder('run-0123456789', 48);
    folder('proposals/sbx-2-generate_prd-1-abcdefabcdef', 25);
    const fresh = folder('sbx-3-fix_ci-1-abcdefabcdef', 1);
    const agent = folder('.agent', 100);
    writeFileSync(join(workDir, 'note.txt'), 'kept');
    const { removed, failed } = await sweepStaleWorkspaces(workDir);
    expect(failed).toEqual([]);
    expect(removed.sort()).toEqual(['proposals/sbx-2-generate_prd-1-abcdefabcdef', 'run-0123456789', 'sbx-1-implement_task-1-abcdefabcdef']);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(agent)).toBe(true);
    expect(existsSync(join(workDir, 'proposals'))).toBe(true);
    expect(existsSync(join(workDir, 'note.txt'))).toBe(true);
  });

  it('removes spend ledgers of attempts never retried after a day, keeps a fresh one', async () => {
    const old = join(workDir, 'spend-0123456789abcdef.jsonl');
    const fresh = join(workDir, 'spend-fedcba9876543210.jsonl');
    writeFileSync(old, '{"at":"then","input_tokens":1,"output_tokens":1}\n');
    writeFileSync(fresh, '{"at":"now","input_tokens":1,"output_tokens":1}\n');
    const time = new Date(Date.now() - 30 * 3600_000);
    utimesSync(old, time, time);
    expect(await sweepStaleWorkspaces(workDir)).toEqual({ removed: ['spend-0123456789abcdef.jsonl'], failed: [] });
    expect(existsSync(fresh)).toBe(true);
  });

  it('is quiet about a work folder that does not exist yet', async () => {
    expect(await sweepStaleWorkspaces(join(workDir, 'missing'))).toEqual({ removed: [], failed: [] });
  });

  it('removes a station folder whose workspace a container made deeper than PATH_MAX', async () => {
    const station = folder('deep-1-implement_task-1-abcdefabcdef', 0);
    makeDeepTree(join(station, 'host'), 30);
    age(station, 30);
    expect(await sweepStaleWorkspaces(workDir)).toEqual({ removed: ['deep-1-implement_task-1-abcdefabcdef'], failed: [] });
    expect(existsSync(station)).toBe(false);
  });

  it('goes on past a folder it cannot remove, and reports it', async () => {
    // A work folder so long that a tree deeper than PATH_MAX in it cannot be taken apart either (remove-tree.ts).
    const longWorkDir = join(workDir, ...Array.from({ length: 8 }, () => DEEP_FOLDER_NAME));
    mkdirSync(longWorkDir, { recursive: true });
    const stuck = join(longWorkDir, 'a-stuck');
    mkdirSync(stuck);
    makeDeepTree(stuck, 15);
    for (const name of ['b-stale', 'c-stale']) mkdirSync(join(longWorkDir, name, 'host'), { recursive: true });
    for (const name of ['a-stuck', 'b-stale', 'c-stale']) age(join(longWorkDir, name), 30);
    const { removed, failed } = await sweepStaleWorkspaces(longWorkDir);
    expect(removed).toEqual(['b-stale', 'c-stale']);
    expect(failed).toEqual([{ path: 'a-stuck', error: expect.stringContaining('remove it by hand') }]);
    expect(existsSync(stuck)).toBe(true);
  });
});
