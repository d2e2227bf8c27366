import type { EffectAttempt, EffectOperation, EffectRecord, EffectStatus } from './effect-types';

/**
 * The effect journal (SPEC 2.3, 3.3): one record per external write, keyed by a deterministic idempotency key, with
 * every attempt and its provider evidence. Pure: the ticket workflow owns the I/O and the clock.
 */
export interface EffectJournal {
  records: Record<string, EffectRecord>;
  /** Keys in creation order. */
  order: string[];
  /** Per `<node>:<operation>`: how many effects were created, so keys stay stable on replay and across restarts. */
  sequence: Record<string, number>;
}

export const EFFECT_RETRY = { maxAttempts: 6, initialMs: 2_000, maxMs: 60_000 } as const;

const TERMINAL: ReadonlySet<EffectStatus> = new Set(['succeeded', 'terminal_failure', 'precondition_failure']);
const UNRESOLVED: ReadonlySet<EffectStatus> = new Set(['pending', 'running', 'retryable_failure', 'indeterminate']);

export function emptyJournal(): EffectJournal {
  return { records: {}, order: [], sequence: {} };
}

export function isTerminal(status: EffectStatus): boolean {
  return TERMINAL.has(status);
}

/** Replay (operator) is allowed for effects that ended in failure and need correction, never for live ones. */
export function isReplayable(status: EffectStatus): boolean {
  return status === 'terminal_failure' || status === 'precondition_failure';
}

function operationName(operation: EffectOperation): string {
  return operation.kind.replace('.', '_');
}

/**
 * `<ticket>:<run_id>:<node>:<operation>:<n>`. run_id is the first run of the chain (stable across continue-as-new);
 * n counts effects of that operation at that node, so the same logical action gets the same key on every replay.
 */
export function createEffect(
  journal: EffectJournal,
  input: { ticket_key: string; run_id: string; node: string; operation: EffectOperation; required: boolean; now: string },
): EffectRecord {
  const slot = `${input.node}:${operationName(input.operation)}`;
  const n = (journal.sequence[slot] ?? 0) + 1;
  journal.sequence[slot] = n;
  const key = `${input.ticket_key}:${input.run_id}:${slot}:${n}`;
  const record: EffectRecord = {
    idempotency_key: key, run_id: input.run_id, ticket_key: input.ticket_key, node: input.node, operation: input.operation,
    required: input.required, status: 'pending', attempts: [], created_at: input.now, updated_at: input.now,
  };
  journal.records[key] = record;
  journal.order.push(key);
  return record;
}

export function recordAttempt(record: EffectRecord, attempt: EffectAttempt): void {
  record.attempts.push(attempt);
  record.status = attempt.status;
  record.updated_at = attempt.finished_at;
}

/** Bounded exponential backoff; a provider's Retry-After wins when it asks for longer. */
export function backoffMs(attempt: number, retryAfterMs: number | null): number {
  const exponential = Math.min(EFFECT_RETRY.maxMs, EFFECT_RETRY.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.max(exponential, retryAfterMs ?? 0);
}

export function shouldRetry(record: EffectRecord): boolean {
  return (record.status === 'retryable_failure' || record.status === 'indeterminate') && record.attempts.length < EFFECT_RETRY.maxAttempts;
}

export function unresolvedRequired(journal: EffectJournal): EffectRecord[] {
  return journal.order.map((key) => journal.records[key]!).filter((r) => r.required && UNRESOLVED.has(r.status));
}

/**
 * Retention: keeps at most `keepTerminal` finished effects (the newest); pending, running, retryable and
 * indeterminate effects are never removed. The per-slot sequence is kept so keys are never reused.
 */
export function trimJournal(journal: EffectJournal, keepTerminal: number): number {
  const terminal = journal.order.filter((key) => isTerminal(journal.records[key]!.status));
  const drop = new Set(terminal.slice(0, Math.max(0, terminal.length - keepTerminal)));
  for (const key of drop) delete journal.records[key];
  journal.order = journal.order.filter((key) => !drop.has(key));
  return drop.size;
}

/** A JSON view for the effect API: records newest last. */
export function listEffects(journal: EffectJournal): EffectRecord[] {
  return journal.order.map((key) => journal.records[key]!);
}
