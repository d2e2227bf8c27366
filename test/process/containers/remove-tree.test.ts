import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTree } from '../../../src/containers/remove-tree';
import { deepBottom, makeDeepTree } from '../../helpers/deep-tree';

const root = mkdtempSync(join(tmpdir(), 'remove-tree-'));
afterAll(async () => removeTree(root));

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

describe('removing a tree of any depth', () => {
  it('removes a tree deeper than PATH_MAX that fs.rm cannot, without following its links', async () => {
    const canary = join(root, 'canary');
    mkdirSync(canary);
    writeFileSync(join(canary, 'keep.txt'), 'kept');
    const tree = join(root, 'deep');
    mkdirSync(tree);
    makeDeepTree(tree, 45, canary);
    mkdirSync(join(tree, 'second'));
    makeDeepTree(join(tree, 'second'), 30, canary);
    // Ordinary folders beside it, which the failed fs.rm goes on removing while the deep ones are moved up.
    for (let index = 0; index < 20; index += 1) mkdirSync(join(tree, `wide-${index}`, ...Array.from({ length: 60 }, (_, level) => `l${level}`)), { recursive: true });
    // The tree really is deeper than the kernel takes a path, and fs.rm gives up on it.
    expect(() => lstatSync(deepBottom(tree, 45)), 'a path to the bottom').toThrow(expect.objectContaining({ code: 'ENAMETOOLONG' }));
    expect(await rm(tree, { recursive: true, force: true }).then(() => 'removed', code)).toBe('ENAMETOOLONG');
    expect(existsSync(tree), 'fs.rm left the tree').toBe(true);

    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readFileSync(join(canary, 'keep.txt'), 'utf8'), 'the folder the deep links pointed at').toBe('kept');
  });

  it('removes ordinary trees, files, and nothing at all', async () => {
    const tree = join(root, 'plain');
    mkdirSync(join(tree, 'a', 'b'), { recursive: true });
    writeFileSync(join(tree, 'a', 'b', 'f'), 'x');
    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    writeFileSync(join(root, 'file'), 'x');
    await removeTree(join(root, 'file'));
    expect(existsSync(join(root, 'file'))).toBe(false);
    await expect(removeTree(join(root, 'missing'))).resolves.toBeUndefined();
  });
});
