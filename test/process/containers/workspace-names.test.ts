import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGit } from '../../../src/containers/git-remote';
import { displayPath, displayRawName, isDotGit, refusedLinkName, refusedName } from '../../../src/containers/workspace-names';

const root = mkdtempSync(join(tmpdir(), 'workspace-names-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Names another file system reads as `.git`: NTFS drops trailing dots and spaces and knows short names and streams, HFS+ ignores some code points. */
const DOT_GIT = [
  '.git.', '.GIT ', '.git...', '.Git. .', 'GIT~1', 'git~1', 'Git~2', 'git~10', '.git::$INDEX_ALLOCATION', '.git:stream', '.GIT.:x',
  '.g\u200cit', '\ufeff.git', '.gi\u200dt', '.git\u200e', '.\u202egit', 'a\\.git', 'x\\GIT~1.',
];
/** Names that only look alike: git takes them, and so does the host. */
const ORDINARY = ['.gitignore', '.github', '.gitattributes', 'git', '.git-blame-ignore-revs', 'x.git', 'git~', 'git~a', '.gi t', 'a:b', 'notes.git.md', 'git~1x'];

describe('names the host does not commit', () => {
  it('takes every spelling of .git for .git, and nothing else', () => {
    expect(DOT_GIT.filter((name) => !isDotGit(name))).toEqual([]);
    expect(ORDINARY.filter((name) => isDotGit(name))).toEqual([]);
  });

  it('refuses every name host git refuses to add (core.protectNTFS and core.protectHFS), checked against git itself', async () => {
    const candidates = [...DOT_GIT, ...ORDINARY, '.gitmodules', '.GITMODULES.', 'gitmod~1', '.gitmodules:x'];
    const refusedByGit: string[] = [];
    const refusedByHost: string[] = [];
    for (const kind of ['file', 'link'] as const) {
      const repo = join(root, `repo-${kind}`);
      mkdirSync(repo);
      await runGit(['init', '--quiet'], { cwd: repo });
      for (const name of candidates) {
        if (kind === 'file') writeFileSync(join(repo, name), 'x');
        else symlinkSync('target', join(repo, name));
        // runGit passes the host's settings (HOST_GIT_CONFIG), protectNTFS and protectHFS among them.
        if (!(await runGit(['add', '--', name], { cwd: repo }).then(() => true, () => false))) refusedByGit.push(`${kind} ${name}`);
        if (refusedName(name, name, 1) ?? (kind === 'link' ? refusedLinkName(name) : undefined)) refusedByHost.push(`${kind} ${name}`);
      }
    }
    expect(refusedByGit.filter((name) => !refusedByHost.includes(name)), 'refused by git, taken by the host').toEqual([]);
    expect(refusedByHost.filter((entry) => ORDINARY.some((name) => entry.endsWith(` ${name}`))), 'ordinary names the host refuses').toEqual([]);
    // The check proves something only if git really refused some of them.
    expect(refusedByGit).toEqual(expect.arrayContaining(['file .git.', 'file GIT~1', 'file .g\u200cit', 'file .git::$INDEX_ALLOCATION', 'link .gitmodules']));
  }, 60_000);

  it('refuses the names of the ordinary tree that git takes only as files: a .gitmodules link', () => {
    expect(refusedLinkName('.gitmodules')).toBeDefined();
    expect(refusedLinkName('.GitModules. ')).toBeDefined();
    expect(refusedLinkName('.gitmodules-old')).toBeUndefined();
  });

  it('refuses names and paths over the bounds, and names that are no names', () => {
    const bounds = { maxNameBytes: 255, maxPathBytes: 1024, maxDepth: 64 };
    expect(refusedName('a'.repeat(255), 'a'.repeat(255), 1, bounds)).toBeUndefined();
    // 128 two-byte characters: 256 bytes in 128 characters.
    expect(refusedName('é'.repeat(128), 'é'.repeat(128), 1, bounds)).toContain('255 bytes');
    const longPath = `${'d/'.repeat(30)}${'x'.repeat(1000)}`;
    expect(refusedName(longPath, 'x'.repeat(1000), 31, { ...bounds, maxNameBytes: 2000 })).toContain('1024 bytes');
    expect(refusedName('a/b', 'b', 65, bounds)).toContain('64 folders');
    expect(refusedName('a/b', 'b', 64, bounds)).toBeUndefined();
    for (const name of ['', '.', '..', 'a/b', 'a\0b']) expect(refusedName(name, name, 1, bounds)).toBeDefined();
  });

  it('shows a path so that an invisible or forged part is visible, and keeps it short', () => {
    expect(displayPath('.g\u200cit')).toBe('".g\\u{200c}it"');
    expect(displayPath('.GIT ')).toBe('".GIT "');
    expect(displayPath('a\nERROR: forged line')).toBe('"a\\u{a}ERROR: forged line"');
    expect(displayPath('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(displayPath('x'.repeat(500))).toBe(`"${'x'.repeat(200)}…"`);
    expect(displayRawName(Buffer.from([0x61, 0xff, 0x0a]))).toBe('"a\\xff\\x0a"');
  });
});
