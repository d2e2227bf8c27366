import { execFileSync } from 'node:child_process';

/** A folder name of 200 bytes: 21 of them nested make a path longer than PATH_MAX (4096 bytes). */
export const DEEP_FOLDER_NAME = 'd'.repeat(200);

/**
 * Builds `levels` nested folders under `dir` the way a container can: ten levels at a time with a relative `mkdir -p`
 * and a `cd` into them, so no command ever names the whole path. At the bottom: a file, and a symbolic link to
 * `linkTarget` when given.
 */
export function makeDeepTree(dir: string, levels: number, linkTarget?: string): void {
  const chunk = (count: number) => Array.from({ length: count }, () => DEEP_FOLDER_NAME).join('/');
  const script = [
    'set -e', 'cd "$1"',
    `for i in $(seq 1 ${Math.floor(levels / 10)}); do mkdir -p ${chunk(10)}; cd ${chunk(10)}; done`,
    ...(levels % 10 > 0 ? [`mkdir -p ${chunk(levels % 10)}`, `cd ${chunk(levels % 10)}`] : []),
    'printf bottom > bottom.txt',
    ...(linkTarget ? ['ln -s "$2" link-out'] : []),
  ].join('\n');
  execFileSync('bash', ['-c', script, 'deep-tree', dir, linkTarget ?? ''], { stdio: 'ignore' });
}

/** The bottom of a tree made by makeDeepTree, as one path (too long for the kernel to take whole). */
export const deepBottom = (dir: string, levels: number) => [dir, ...Array.from({ length: levels }, () => DEEP_FOLDER_NAME), 'bottom.txt'].join('/');
