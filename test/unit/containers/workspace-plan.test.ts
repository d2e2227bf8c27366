import { describe, expect, it } from 'vitest';
import type { TreeEntry } from '../../../src/containers/link-resolution';
import { planHostTree, type WorkspaceEntry } from '../../../src/containers/workspace-plan';

const dir = { kind: 'dir' } as const;
const file = { kind: 'file' } as const;
const link = (target: string): TreeEntry => ({ kind: 'link', target });
const entries = <T>(record: Record<string, T>) => new Map(Object.entries(record));

const base = entries<TreeEntry>({ 'README.md': file, sub: dir, 'sub/d': dir, 'sub/d/x': file, 'sub/l': link('d/../../README.md'), 'host-out': link('/etc/hostname') });

describe('the host tree a workspace makes, with its links judged on it', () => {
  it('writes links that stay inside and refuses those that leave, keeping what the host had at that path', () => {
    const workspace = entries<WorkspaceEntry>({
      ...Object.fromEntries(base), 'README.md': link('/etc/passwd'), 'ok': link('sub/d/x'), 'out': link('../x'),
    });
    const plan = planHostTree(workspace, base);
    expect(plan.blocked).toBeUndefined();
    expect([...plan.refusedLinks.keys()].sort()).toEqual(['README.md', 'out']);
    expect(plan.tree.get('README.md')).toEqual(file);
    expect(plan.tree.has('out')).toBe(false);
    expect(plan.tree.get('ok')).toEqual(link('sub/d/x'));
  });

  it('keeps a link of the base branch that already left the repository, and refuses the agent\'s new target for it', () => {
    const unchanged = planHostTree(entries<WorkspaceEntry>(Object.fromEntries(base)), base);
    expect([unchanged.refusedLinks.size, unchanged.blocked]).toEqual([0, undefined]);
    expect(unchanged.tree.get('host-out')).toEqual(link('/etc/hostname'));
    const changed = planHostTree(entries<WorkspaceEntry>({ ...Object.fromEntries(base), 'host-out': link('/etc/shadow') }), base);
    expect([...changed.refusedLinks.keys()]).toEqual(['host-out']);
    expect(changed.tree.get('host-out')).toEqual(link('/etc/hostname'));
    // Moved elsewhere, it is the agent's link.
    const moved = planHostTree(entries<WorkspaceEntry>({ ...Object.fromEntries(base), 'copy-of-out': link('/etc/hostname') }), base);
    expect([...moved.refusedLinks.keys()]).toEqual(['copy-of-out']);
  });

  it('refuses a link that points at a link of the base branch that leaves', () => {
    const plan = planHostTree(entries<WorkspaceEntry>({ ...Object.fromEntries(base), via: link('host-out') }), base);
    expect([...plan.refusedLinks.keys()]).toEqual(['via']);
  });

  it('blocks a workspace whose changes make a link of the base branch leave the repository, naming both', () => {
    // sub/l climbs out of sub/d in the base; with sub/d a link to the root, the same text climbs above the root.
    const workspace = entries<WorkspaceEntry>({ ...Object.fromEntries(base), 'sub/d': link('..') });
    workspace.delete('sub/d/x');
    const plan = planHostTree(workspace, base);
    expect(plan.blocked?.path).toBe('sub/l');
    expect(plan.blocked?.reason).toContain('"sub/d"');
    // A folder of the base replaced by a plain folder elsewhere changes nothing for sub/l.
    const harmless = entries<WorkspaceEntry>({ ...Object.fromEntries(base), 'sub/e': dir });
    expect(planHostTree(harmless, base).blocked).toBeUndefined();
  });

  it('blocks when a link on the way of a base link becomes a folder and the text alone then climbs out', () => {
    const withLink = entries<TreeEntry>({ a: dir, 'a/b': dir, 'a/b/c': dir, hop: link('a/b/c'), l: link('hop/../../../x') });
    const workspace = entries<WorkspaceEntry>({ a: dir, 'a/b': dir, 'a/b/c': dir, hop: dir, l: link('hop/../../../x') });
    expect(planHostTree(workspace, withLink).blocked?.path).toBe('l');
  });

  it('keeps the host\'s entry, and what lies under it, where the workspace holds something the host does not read', () => {
    const workspace = entries<WorkspaceEntry>({ 'README.md': file, sub: { kind: 'other', reason: 'a FIFO' }, 'host-out': link('/etc/hostname') });
    const plan = planHostTree(workspace, base);
    expect([...plan.tree.keys()].sort()).toEqual(['README.md', 'host-out', 'sub', 'sub/d', 'sub/d/x', 'sub/l']);
    expect(plan.blocked).toBeUndefined();
  });
});
