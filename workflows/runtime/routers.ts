import type { RouterNode } from '../built-in-definitions/definition-types';
import { repositorySourcesOf } from './node-traits';

/**
 * What the stations left in `outputs` and the routers that decide on it: pure helpers of `step` (step.ts) and of
 * the command boundary (how many options an RCA offers). No I/O, no clock.
 */

/** The router decisions: pure functions of what earlier stations left in `outputs`. */
export type RouterDecision = { ok: true; outcome: string; data?: Record<string, unknown> } | { ok: false; reason: string };

/**
 * The repositories the ticket's planning station left for the router: `sources` are the stations the router node
 * reads (`repositorySourcesOf`), the first that left any wins.
 */
export function plannedRepositoriesOf(outputs: Record<string, unknown>, sources: readonly string[]): string[] {
  for (const station of sources) {
    const planned = (outputs[station] as { repositories?: unknown } | undefined)?.repositories;
    if (Array.isArray(planned)) return planned.filter((r): r is string => typeof r === 'string');
  }
  return [];
}

/**
 * `next_repository` walks the repositories the planning station planned (the node's `repositories_from`:
 * provision_tasks in the feature graph, decompose_plan in the bug graph, generate_plan in the takeover), one per
 * decision. Its decision is kept as `outputs.next_repository` (`{repository, index, count}`), which tells the
 * per-repository stations where they work.
 */
export function decideRouter(spec: RouterNode, outputs: Record<string, unknown>, turn: number): RouterDecision {
  const { router } = spec;
  if (router === 'next_repository') {
    const repositories = plannedRepositoriesOf(outputs, repositorySourcesOf(spec));
    // The router decides once before the first repository and once after each: turn n routes repository n.
    if (turn <= repositories.length) return { ok: true, outcome: 'next', data: { repository: repositories[turn - 1], index: turn, count: repositories.length } };
    return { ok: true, outcome: 'done', data: { repository: null, index: turn, count: repositories.length } };
  }
  return { ok: false, reason: `no router named "${router}"` };
}

/**
 * How many fix options the RCA shown at rca_option_gate offers (`outputs.reflect_rca.option_count`, set when the
 * RCA comment was posted); `>option N` is meaningful for 1..N only. 0 when nothing was posted.
 */
export function rcaOptionCount(outputs: Record<string, unknown>): number {
  const count = (outputs.reflect_rca as { option_count?: unknown } | undefined)?.option_count;
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 0;
}
