import { preview } from '../runtime/bounded-json';
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
 * DESIGN 5 / SPEC 2.3: the key names the logical action, `<ticket>:<run_id>:<node>:<visit>:<effect_name>`. run_id is
 * the first run of the chain (stable across continue-as-new), visit counts entries into the node (a resume after a
 * block keeps the visit), effect_name is chosen by whoever asks for the write. The same action after a block and
 * service:retry, a worker restart or a replay therefore gets the same key, and the provider-side reconciliation
 * finds the earlier write instead of writing again.
 */
export function effectKey(input: { ticket_key: string; run_id: string; node: string; visit: number; name: string }): string {
  return `${input.ticket_key}:${input.run_id}:${input.node}:${input.visit}:${input.name}`;
}

/**
 * Creates the record for a write. With `key`, the logical-action key above; without it (tickets started by the
 * v0.1 build, still replayed), the old per-slot sequence `<ticket>:<run_id>:<node>:<operation>:<n>`.
 */
export function createEffect(
  journal: EffectJournal,
  input: { ticket_key: string; run_id: string; node: string; operation: EffectOperation; required: boolean; now: string; key?: string },
): EffectRecord {
  let key = input.key;
  if (key === undefined) {
    const slot = `${input.node}:${operationName(input.operation)}`;
    const n = (journal.sequence[slot] ?? 0) + 1;
    journal.sequence[slot] = n;
    key = `${input.ticket_key}:${input.run_id}:${slot}:${n}`;
  }
  const record: EffectRecord = {
    idempotency_key: key, run_id: input.run_id, ticket_key: input.ticket_key, node: input.node, operation: input.operation,
    required: input.required, status: 'pending', attempts: [], created_at: input.now, updated_at: input.now,
  };
  journal.records[key] = record;
  journal.order.push(key);
  return record;
}

/** Attempts kept per record: the first (what happened at once) and the latest ones (how it ended). */
export const ATTEMPTS_KEPT = 8;
/** A succeeded write keeps a preview of its body: it is never replayed, and whole artifacts would fill the state. */
export const SUCCEEDED_BODY_PREVIEW = 300;

export function recordAttempt(record: EffectRecord, attempt: EffectAttempt): void {
  record.attempts.push(attempt);
  if (record.attempts.length > ATTEMPTS_KEPT) record.attempts.splice(1, record.attempts.length - ATTEMPTS_KEPT);
  record.status = attempt.status;
  record.updated_at = attempt.finished_at;
  const body = 'body' in record.operation ? record.operation.body : undefined;
  if (attempt.status === 'succeeded' && typeof body === 'string') {
    record.operation = { ...record.operation, body: preview(body, SUCCEEDED_BODY_PREVIEW) } as EffectOperation;
  }
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
