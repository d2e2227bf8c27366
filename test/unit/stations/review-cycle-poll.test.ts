import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_OUTPUT_BOUNDS as B, boundedRunRecords } from '../../../activities/stations/agent-output-bounds';
import { emptyReviewCycleTally, keptCycles, pollReviewCycles } from '../../../activities/stations/review-cycle-poll';
import type { ReviewCycle } from '../../../src/agent/agent-task';

const FOLDER = '.service/implement';

/** A cycle file of about 8 KB, as a hostile agent writes a thousand of them. */
const cycleText = (n: number, feedback = 'x'.repeat(7_800)) => JSON.stringify({
  cycle: n, max_cycles: 1_000, verdict: 'REJECTED', feedback, skill: 'implement_task', elapsed_seconds: 1, timestamp: '2026-11-28T00:00:00Z',
});

describe('pollReviewCycles, against an agent that writes more cycle files than any review has', () => {
  let root: string;
  let folder: string;
  let recorded: ReviewCycle[];
  const record = async (cycle: ReviewCycle) => { recorded.push(cycle); };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cycle-poll-'));
    folder = join(root, FOLDER);
    mkdirSync(folder, { recursive: true });
    recorded = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps and records the lowest 20 of 1,000 cycle files of 8 KB once, counts the other 980, and reads none of them again', async () => {
    for (let n = 1; n <= 1_000; n += 1) writeFileSync(join(folder, `review_cycle_${n}.json`), cycleText(n));
    const tally = emptyReviewCycleTally();
    await pollReviewCycles(root, FOLDER, tally, record);
    expect(tally.kept.size).toBe(B.reviewCycles);
    expect(keptCycles(tally).map((c) => c.cycle)).toEqual(Array.from({ length: B.reviewCycles }, (_, i) => i + 1));
    expect(tally.dropped).toBe(980);
    expect(tally.listingCut).toBe(false);
    expect(recorded).toHaveLength(B.reviewCycles);

    // Rewritten kept cycles are not read again; later polls record nothing more and keep the count.
    for (let n = 1; n <= 1_000; n += 1) writeFileSync(join(folder, `review_cycle_${n}.json`), cycleText(n, 'rewritten'));
    await pollReviewCycles(root, FOLDER, tally, record);
    await pollReviewCycles(root, FOLDER, tally, record);
    expect(recorded).toHaveLength(B.reviewCycles);
    expect(keptCycles(tally).every((c) => c.feedback.startsWith('xxx'))).toBe(true);
    expect(tally.dropped).toBe(980);

    const records = boundedRunRecords({ files: [], refused: [], cycles: keptCycles(tally), cyclesDropped: tally.dropped, cycleListingCut: tally.listingCut, transcript: [], modelCalls: [], toolServerCalls: [] });
    expect(records.review.cycles_dropped).toBe(980);
    expect(Buffer.byteLength(JSON.stringify(records.review)), 'the serialized cycles of the station result').toBeLessThan(64 * 1024);
  });

  it('opens at most cycleReadsPerPoll files per poll and stops reading at the bound', async () => {
    const bounds = { ...B, reviewCycles: 3, cycleReadsPerPoll: 2 };
    for (let n = 1; n <= 5; n += 1) writeFileSync(join(folder, `review_cycle_${n}.json`), cycleText(n, 'ok'));
    const tally = emptyReviewCycleTally();
    await pollReviewCycles(root, FOLDER, tally, record, bounds);
    expect([...tally.kept.keys()]).toEqual([1, 2]);
    await pollReviewCycles(root, FOLDER, tally, record, bounds);
    expect([...tally.kept.keys()].sort()).toEqual([1, 2, 3]);
    expect(tally.dropped).toBe(2);
    await pollReviewCycles(root, FOLDER, tally, record, bounds);
    expect(recorded.map((c) => c.cycle)).toEqual([1, 2, 3]);
  });

  it('tries a file that does not parse yet again at the next poll, and takes it once it is a cycle', async () => {
    writeFileSync(join(folder, 'review_cycle_1.json'), '{"cycle": 1, "verd');
    const tally = emptyReviewCycleTally();
    await pollReviewCycles(root, FOLDER, tally, record);
    expect(tally.kept.size).toBe(0);
    expect(tally.dropped).toBe(1);
    writeFileSync(join(folder, 'review_cycle_1.json'), cycleText(1, 'done'));
    await pollReviewCycles(root, FOLDER, tally, record);
    expect(keptCycles(tally).map((c) => c.feedback)).toEqual(['done']);
    expect(tally.dropped).toBe(0);
  });

  it('looks at no more than cycleNamesPerPoll names of a crowded folder and says the listing was cut', async () => {
    for (let n = 0; n < 300; n += 1) writeFileSync(join(folder, `junk-${n}`), '');
    const tally = emptyReviewCycleTally();
    await pollReviewCycles(root, FOLDER, tally, record, { ...B, cycleNamesPerPoll: 100 });
    expect(tally.listingCut).toBe(true);
    expect(tally.kept.size).toBe(0);
  });

  it('neither reads nor counts cycle files in a host folder the cycle folder links to', async () => {
    const host = mkdtempSync(join(tmpdir(), 'cycle-host-'));
    try {
      for (let n = 1; n <= 30; n += 1) writeFileSync(join(host, `review_cycle_${n}.json`), cycleText(n, 'host secret'));
      rmSync(folder, { recursive: true });
      symlinkSync(host, folder);
      const tally = emptyReviewCycleTally();
      await pollReviewCycles(root, FOLDER, tally, record);
      expect({ kept: tally.kept.size, dropped: tally.dropped, recorded: recorded.length }).toEqual({ kept: 0, dropped: 0, recorded: 0 });
      // A link one folder up: .service itself.
      rmSync(join(root, '.service'), { recursive: true });
      mkdirSync(join(host, 'implement'));
      writeFileSync(join(host, 'implement', 'review_cycle_1.json'), cycleText(1, 'host secret'));
      symlinkSync(host, join(root, '.service'));
      await pollReviewCycles(root, FOLDER, tally, record);
      expect({ kept: tally.kept.size, dropped: tally.dropped, recorded: recorded.length }).toEqual({ kept: 0, dropped: 0, recorded: 0 });
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  });

  it('counts a file named like a cycle once per number, and ignores numbers too long to be one', async () => {
    writeFileSync(join(folder, 'review_cycle_1.json'), cycleText(1, 'one'));
    writeFileSync(join(folder, 'review_cycle_01.json'), cycleText(1, 'one again'));
    writeFileSync(join(folder, `review_cycle_${'9'.repeat(200)}.json`), cycleText(2));
    const tally = emptyReviewCycleTally();
    await pollReviewCycles(root, FOLDER, tally, record);
    expect(tally.kept.size).toBe(1);
    expect(tally.dropped).toBe(0);
  });
});
