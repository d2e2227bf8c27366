import type { Checkpoint, Runtime, TicketState } from './ticket-state';
import type { Position, StepState } from './step-types';

/**
 * Between the workflow's state (SPEC 2.6 checkpoint and the runtime record) and the step function's position. The
 * position is a copy: `step` never sees the objects the workflow mutates, and `applyPosition` writes back only what
 * changed, so a field absent in older state stays absent until a step sets it.
 */
export function positionOf(checkpoint: Checkpoint, runtime: Runtime): Position {
  return {
    node: checkpoint.current_node,
    paused: checkpoint.is_paused,
    visits: { ...runtime.visits },
    bound_counts: { ...runtime.bound_counts },
    return_to: runtime.return_to,
    resume_at: runtime.resume_at,
    request: runtime.request,
    yolo: runtime.yolo,
    rebase_target: runtime.rebase_target ?? null,
    ci_fix_attempts: checkpoint.ci_fix_attempts,
    ci_skipped_checks: [...checkpoint.ci_skipped_checks],
  };
}

export function stepStateOf(state: TicketState): StepState {
  const runtime = state.runtime!;
  return {
    position: positionOf(state.checkpoint, runtime),
    blocked: state.checkpoint.is_blocked,
    ended: runtime.ended === 'completed',
    retry_count: state.retry_count,
    pull_requests: [...state.pull_requests],
    merged_pull_requests: [...(runtime.merged_pull_requests ?? [])],
    approved_pull_requests: [...(runtime.approved_pull_requests ?? [])],
    outputs: state.outputs ?? {},
  };
}

/** Writes the counts in place: changed keys, and keys a migration renamed away (counts are never dropped otherwise). */
function writeCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [key, value] of Object.entries(from)) if (into[key] !== value) into[key] = value;
  for (const key of Object.keys(into)) if (!Object.hasOwn(from, key)) delete into[key];
}

/** Writes `position` into the checkpoint and runtime in place (other modules hold these objects). */
export function applyPosition(checkpoint: Checkpoint, runtime: Runtime, position: Position): void {
  checkpoint.current_node = position.node;
  checkpoint.is_paused = position.paused;
  checkpoint.ci_fix_attempts = position.ci_fix_attempts;
  if (checkpoint.ci_skipped_checks.join('\n') !== position.ci_skipped_checks.join('\n')) checkpoint.ci_skipped_checks = [...position.ci_skipped_checks];
  writeCounts(runtime.visits, position.visits);
  writeCounts(runtime.bound_counts, position.bound_counts);
  runtime.return_to = position.return_to;
  runtime.resume_at = position.resume_at;
  runtime.request = position.request;
  runtime.yolo = position.yolo;
  if ((runtime.rebase_target ?? null) !== position.rebase_target) runtime.rebase_target = position.rebase_target;
}
