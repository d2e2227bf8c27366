import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepStaleWorkspaces } from '../../../src/containers/workspace-sweep';

const workDir = mkdtempSync(join(tmpdir(), 'workspace-sweep-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

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
    const removed = await sweepStaleWorkspaces(workDir);
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
    expect(await sweepStaleWorkspaces(workDir)).toEqual(['spend-0123456789abcdef.jsonl']);
    expect(existsSync(fresh)).toBe(true);
  });

  it('is quiet about a work folder that does not exist yet', async () => {
    expect(await sweepStaleWorkspaces(join(workDir, 'missing'))).toEqual([]);
  });
});
