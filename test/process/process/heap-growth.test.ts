import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { heapGrowingFlag } from '../../../src/process/heap-growth';

describe('heapGrowingFlag', () => {
  it('fixes the growing factor at the configured percent', () => {
    expect(heapGrowingFlag(25, [], undefined)).toBe('--heap-growing-percent=25');
  });

  it('leaves V8 its own heuristics at 0', () => {
    expect(heapGrowingFlag(0, [], undefined)).toBeUndefined();
  });

  it('leaves a flag the operator gave in NODE_OPTIONS or on the node command line, in either spelling', () => {
    expect(heapGrowingFlag(25, [], '--max-old-space-size=512 --heap-growing-percent=50')).toBeUndefined();
    expect(heapGrowingFlag(25, ['--heap_growing_percent=10'], undefined)).toBeUndefined();
    expect(heapGrowingFlag(25, ['--max-old-space-size=512'], '--enable-source-maps')).toBe('--heap-growing-percent=25');
  });
});

describe('the growing flag set at run time', () => {
  // limitHeapGrowth sets it after the process started: V8 reads it at each full collection, so it bounds how far the
  // heap grows over what survived. A program that keeps 300,000 objects live and promotes short-lived ones shows it.
  const peakHeapMiB = (limit: boolean) => {
    const script = `
      ${limit ? `require('v8').setFlagsFromString(${JSON.stringify(heapGrowingFlag(10, [], undefined))});` : ''}
      const live = []; for (let i = 0; i < 300000; i += 1) live.push({ i, s: 'x' + i });
      let peak = 0; const ring = new Array(200000);
      for (let round = 0; round < 3000000; round += 1) {
        ring[round % ring.length] = { round, a: [round, round + 1], s: 'y' + round };
        if (round % 10000 === 0) peak = Math.max(peak, require('v8').getHeapStatistics().total_heap_size);
      }
      process.stdout.write(String(Math.round(peak / 1048576)));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    if (run.status !== 0) throw new Error(run.stderr);
    return Number(run.stdout);
  };

  it('keeps a churning heap smaller than V8 left alone does', () => {
    expect(peakHeapMiB(true)).toBeLessThan(peakHeapMiB(false) * 0.8);
  });
});
