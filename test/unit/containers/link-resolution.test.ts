import { describe, expect, it } from 'vitest';
import { MAX_LINK_HOPS, resolveLink, type TreeEntry } from '../../../src/containers/link-resolution';

const dir = { kind: 'dir' } as const;
const file = { kind: 'file' } as const;
const link = (target: string): TreeEntry => ({ kind: 'link', target });
const tree = (entries: Record<string, TreeEntry>) => new Map(Object.entries(entries));
const up = (levels: number) => Array.from({ length: levels }, () => '..').join('/');

/** Twenty nested folders d1/…/d20, as the attacker of issue 41 built them. */
const deep = Array.from({ length: 20 }, (_, index) => Array.from({ length: index + 1 }, (__, level) => `d${level + 1}`).join('/'));
const bottom = deep[19]!;
const nested = (extra: Record<string, TreeEntry>) => tree({ ...Object.fromEntries(deep.map((path) => [path, dir])), ...extra });

describe('a link is judged by where the kernel resolves it, not by its text', () => {
  it('refuses the chain of issue 41: r climbs to the root, and esc climbs past it through r although its text stays inside', () => {
    const escText = `r/${up(20)}/etc/shadow`;
    const entries = nested({ [`${bottom}/r`]: link(up(20)), [`${bottom}/esc`]: link(escText) });
    // r itself lands on the repository's root: harmless.
    expect(resolveLink(entries, `${bottom}/r`)).toMatchObject({ inside: true, resolved: '' });
    const esc = resolveLink(entries, `${bottom}/esc`);
    expect(esc).toMatchObject({ inside: false, via: [`${bottom}/esc`, `${bottom}/r`] });
    expect(esc.inside ? '' : esc.reason).toContain('above the repository');
    // One level more and r leaves on its own.
    expect(resolveLink(nested({ [`${bottom}/r`]: link(up(21)) }), `${bottom}/r`).inside).toBe(false);
  });

  it('refuses absolute targets, also at the end of a chain', () => {
    expect(resolveLink(tree({ l: link('/etc/passwd') }), 'l').inside).toBe(false);
    const chain = resolveLink(tree({ a: link('b'), b: link('/etc') }), 'a');
    expect(chain).toMatchObject({ inside: false, via: ['a', 'b'] });
  });

  it('refuses relative escapes, also one that comes back into a folder of the same name', () => {
    expect(resolveLink(tree({ a: dir, 'a/l': link('../../x') }), 'a/l').inside).toBe(false);
    // RESOLVE_BENEATH: leaving at any step is leaving, wherever the walk ends.
    expect(resolveLink(tree({ l: link('../repo/README.md'), 'README.md': file }), 'l').inside).toBe(false);
    expect(resolveLink(tree({ a: dir, 'a/l': link('../README.md'), 'README.md': file }), 'a/l')).toMatchObject({ inside: true, resolved: 'README.md', dangling: false });
  });

  it('climbs from where a directory link really leads, not from where its name sits', () => {
    const entries = tree({ p: dir, 'p/q': dir, 'p/q/dl': link('../..'), 'p/q/x': link('dl/../../etc'), 'p/q/ok': link('dl/p/q/file'), 'p/q/file': file });
    expect(resolveLink(entries, 'p/q/x')).toMatchObject({ inside: false, via: ['p/q/x', 'p/q/dl'] });
    expect(resolveLink(entries, 'p/q/ok')).toMatchObject({ inside: true, resolved: 'p/q/file', dangling: false });
  });

  it('refuses a link to a link that escapes, reached through a directory link', () => {
    const entries = tree({ real: dir, alias: link('real'), 'real/out': link('../../secret'), y: link('alias/out') });
    expect(resolveLink(entries, 'y')).toMatchObject({ inside: false, via: ['y', 'alias', 'real/out'] });
  });

  it('refuses loops and chains longer than the kernel follows', () => {
    expect(resolveLink(tree({ a: link('b'), b: link('a') }), 'a').inside).toBe(false);
    expect(resolveLink(tree({ s: link('s') }), 's').inside).toBe(false);
    expect(resolveLink(tree({ c: link('c/x') }), 'c').inside).toBe(false);
    const chain = (length: number) => tree(Object.fromEntries([
      ...Array.from({ length }, (_, index) => [`l${index}`, link(index === length - 1 ? 'target.txt' : `l${index + 1}`)]),
      ['target.txt', file],
    ]));
    expect(resolveLink(chain(MAX_LINK_HOPS), 'l0')).toMatchObject({ inside: true, resolved: 'target.txt' });
    const tooLong = resolveLink(chain(MAX_LINK_HOPS + 1), 'l0');
    expect(tooLong.inside ? '' : tooLong.reason).toContain('loop');
  });

  it('keeps a long chain through folders and links that stays inside', () => {
    const entries = nested({
      [`${bottom}/top`]: link(up(20)), 'docs': dir, 'docs/guide.md': file, 'shortcut': link(`${bottom}/top/docs`),
      [`${bottom}/guide`]: link(`top/shortcut/guide.md`),
    });
    expect(resolveLink(entries, `${bottom}/guide`)).toMatchObject({ inside: true, resolved: 'docs/guide.md', dangling: false });
  });

  it('keeps a dangling link whose rest stays beneath the root, and refuses one whose rest climbs out', () => {
    expect(resolveLink(tree({ d: link('missing/file') }), 'd')).toMatchObject({ inside: true, resolved: 'missing/file', dangling: true });
    expect(resolveLink(tree({ a: dir, 'a/d': link('missing/../../x') }), 'a/d')).toMatchObject({ inside: true, resolved: 'x', dangling: true });
    expect(resolveLink(tree({ d: link('missing/../../x') }), 'd').inside).toBe(false);
    // A file in the middle is taken as a folder: what its rest says decides.
    expect(resolveLink(tree({ 'README.md': file, f: link('README.md/../..') }), 'f').inside).toBe(false);
  });

  it('refuses links into .git, however a file system spells it, and empty targets', () => {
    expect(resolveLink(tree({ g: link('.git/config') }), 'g').inside).toBe(false);
    expect(resolveLink(tree({ sub: dir, g: link('sub/.GIT./hooks/pre-commit') }), 'g').inside).toBe(false);
    expect(resolveLink(tree({ g: link('git~1/config') }), 'g').inside).toBe(false);
    expect(resolveLink(tree({ g: link('') }), 'g').inside).toBe(false);
    expect(resolveLink(tree({ g: link('.github/workflows'), '.github': dir }), 'g').inside).toBe(true);
  });

  it('stops after a bounded number of steps, whatever the targets hold', () => {
    const long = Array.from({ length: 600 }, () => 'a/..').join('/');
    const result = resolveLink(tree({ x: link(long), y: link('x/x/x') }), 'y');
    expect(result.inside ? '' : result.reason).toContain('steps');
  });
});
