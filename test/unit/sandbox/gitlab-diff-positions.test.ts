/**
 * The lines a GitLab diff thread can start on (the simulator's check of a position): an added line by its new number,
 * a removed one by its old number, an unchanged line of a hunk by both; nothing outside the hunks.
 */
import { describe, expect, it } from 'vitest';
import { diffLinesOf, isLineOfDiff } from '../../../src/sandbox/gitlab-simulator/diff-positions';
import type { ChangedFile } from '../../../src/sandbox/scmhost-simulator/bare-repository';

const patch = [
  '@@ -1,4 +1,4 @@',
  ' one',
  '-two',
  '+TWO',
  ' three',
  ' four',
  '@@ -20,2 +20,3 @@ function tail() {',
  ' twenty',
  ' twenty-one',
  '+twenty-two',
  '\\ No newline at end of file',
].join('\n');
const file = (extra: Partial<ChangedFile> = {}): ChangedFile => ({ path: 'src/a.ts', status: 'modified', blobSha: 'b'.repeat(40), additions: 2, deletions: 1, patch, ...extra });
const at = (new_line: number | null, old_line: number | null = null, paths: { new_path?: string; old_path?: string } = {}) => ({ new_path: 'src/a.ts', old_path: 'src/a.ts', new_line, old_line, ...paths });

describe('diff positions', () => {
  it('numbers the lines of the hunks on both sides', () => {
    expect(diffLinesOf(patch).map((l) => [l.oldLine, l.newLine])).toEqual([[1, 1], [2, null], [null, 2], [3, 3], [4, 4], [20, 20], [21, 21], [null, 22]]);
  });

  it('takes an added line by its new number, a removed one by its old number, an unchanged one by both', () => {
    expect(isLineOfDiff([file()], at(2))).toBe(true);
    expect(isLineOfDiff([file()], at(22))).toBe(true);
    expect(isLineOfDiff([file()], at(null, 2))).toBe(true);
    expect(isLineOfDiff([file()], at(3, 3))).toBe(true);
  });

  it('refuses an unchanged line named by its new number alone, a line between or after the hunks, and a file not in the diff', () => {
    expect(isLineOfDiff([file()], at(3))).toBe(false);
    expect(isLineOfDiff([file()], at(10))).toBe(false);
    expect(isLineOfDiff([file()], at(23))).toBe(false);
    expect(isLineOfDiff([file()], at(2, null, { new_path: 'src/b.ts', old_path: 'src/b.ts' }))).toBe(false);
    expect(isLineOfDiff([file({ patch: undefined })], at(2))).toBe(false);
  });

  it('finds a renamed file by its new path', () => {
    expect(isLineOfDiff([file({ path: 'src/c.ts', previousPath: 'src/a.ts', status: 'renamed' })], at(2, null, { new_path: 'src/c.ts' }))).toBe(true);
  });
});
