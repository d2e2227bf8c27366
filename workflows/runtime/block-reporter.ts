import { patched, proxySinks } from '@temporalio/workflow';
import {
  blockedComment, blockPersistsComment, blockReport, enterBlocked, nextBlockRecord, REPEATED_BLOCK_PATCH, type BlockingCode } from './blocking';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import type { DriverContext } from './driver-context';
import type { TicketWrites } from './ticket-writes';
import { nowIso } from './clock';
import { BLOCKED_LABEL } from '../vocabulary/labels';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();

/** Blocks the ticket (./blocking.ts decides what a block is) and reports it: metric, timeline, search attributes, the ticket. */
export function createBlockReporter(
  context: Pick<DriverContext, 'state' | 'runtime' | 'ticketKey' | 'publish' | 'timeline' | 'visit'>,
  effect: TicketWrites['effect'],
) {
  const { state, runtime, ticketKey, publish, timeline, visit } = context;

  const block = async (code: BlockingCode | string, message: string, comment?: string | null) => {
    if (!enterBlocked(state, code as BlockingCode, message, nowIso())) return;
    serviceMetrics.ticketBlocked(code);
    const node = state.checkpoint.current_node;
    // A retry that ran into the very same block again is told apart from a new block (workflows/runtime/blocking.ts).
    const record = nextBlockRecord(runtime.last_block, { node, visit: visit(), code, message });
    runtime.last_block = record;
    timeline({
      kind: 'transition', occurred_at: nowIso(), status: 'blocked',
      summary: `Blocked at ${node}: ${message}${record.repeats > 0 ? ` (the same block again, ${record.repeats} retr${record.repeats === 1 ? 'y' : 'ies'} in a row)` : ''}`,
      details: { code, node, ...(record.repeats > 0 ? { repeats: record.repeats } : {}) },
    });
    publish();
    // These writes report the block; they are not required, or a failure to report would block a blocked ticket.
    // The block count keeps them apart from an earlier block of the same visit (same node, resumed, blocked again).
    const episode = `blocked_${state.retry_count}`;
    await effect(`${episode}_label`, { kind: 'tracker.labels', issue_key: ticketKey, add: [BLOCKED_LABEL], remove: [] });
    if (comment === null) return;
    // Patched: histories from before posted the full comment for every block.
    const report = record.repeats > 0 && patched(REPEATED_BLOCK_PATCH) ? blockReport(record) : 'full';
    if (report === 'full') {
      await effect(`${episode}_comment`, {
        kind: 'tracker.comment', issue_key: ticketKey,
        body: comment ?? blockedComment({ node, code: code as BlockingCode, message, ticketKey }),
      });
    } else if (report === 'persists') {
      await effect(`${episode}_persists`, { kind: 'tracker.comment', issue_key: ticketKey, body: blockPersistsComment({ node, code, message }) });
    }
  };

  return { block };
}

export type BlockReporter = ReturnType<typeof createBlockReporter>;
