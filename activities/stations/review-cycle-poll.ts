import { join } from 'node:path';
import type { ReviewCycle } from '../../src/agent/agent-task';
import { parseReviewCycle } from '../../src/containers/agent-report';
import { readContainedText } from '../../src/containers/contained-file';
import { listContainedFolder } from '../../src/containers/contained-listing';
import { AGENT_OUTPUT_BOUNDS, type AgentOutputBounds } from './agent-output-bounds';

/** What the polls of one run found; every part is bounded, whatever the agent writes. */
export interface ReviewCycleTally {
  /** The cycles kept, by the number in their file name: at most `reviewCycles` of them. */
  readonly kept: Map<number, ReviewCycle>;
  /** Cycle files of the last listing that were not kept: past the bound, or not (yet) a readable cycle. */
  dropped: number;
  /** The last listing stopped at `cycleNamesPerPoll` names, so there may be more cycle files than `dropped`. */
  listingCut: boolean;
}

export const emptyReviewCycleTally = (): ReviewCycleTally => ({ kept: new Map(), dropped: 0, listingCut: false });

const CYCLE_NAME = /^review_cycle_(\d{1,9})\.json$/;

/**
 * New `review_cycle_<N>.json` files since the last poll, read as data (no links, bounded, checked) and each recorded
 * once, lowest numbers first. Once `reviewCycles` are kept nothing more is read, only counted; a file that does not
 * parse (being written, or not a cycle) is tried again at the next poll, with at most `cycleReadsPerPoll` opened per
 * poll, so junk cannot make a poll read without end.
 */
export async function pollReviewCycles(root: string, folder: string, tally: ReviewCycleTally, record: (cycle: ReviewCycle) => Promise<void>, bounds: AgentOutputBounds = AGENT_OUTPUT_BOUNDS): Promise<void> {
  const listing = await listContainedFolder(root, folder, bounds.cycleNamesPerPoll);
  if (!listing.ok) return;
  const names = new Map<number, string>();
  for (const name of listing.names) {
    const match = CYCLE_NAME.exec(name);
    const number = match ? Number(match[1]) : undefined;
    if (number !== undefined && !tally.kept.has(number) && !names.has(number)) names.set(number, name);
  }
  const waiting = [...names.keys()].sort((a, b) => a - b);
  let reads = 0;
  for (const number of waiting) {
    if (tally.kept.size >= bounds.reviewCycles || reads >= bounds.cycleReadsPerPoll) break;
    reads += 1;
    const text = await readContainedText(root, join(folder, names.get(number)!), bounds.cycleFileBytes);
    const cycle = text === undefined ? undefined : parseReviewCycle(text);
    if (!cycle) continue;
    tally.kept.set(number, cycle);
    await record(cycle);
  }
  tally.dropped = waiting.filter((number) => !tally.kept.has(number)).length;
  tally.listingCut = listing.cut;
}

/** The kept cycles in the order of their numbers. */
export const keptCycles = (tally: ReviewCycleTally): ReviewCycle[] => [...tally.kept.entries()].sort(([a], [b]) => a - b).map(([, cycle]) => cycle);
