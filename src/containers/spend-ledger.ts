import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import type { TokenUsage } from './proxy-request-policy';

/**
 * The host-side ledger of what a station's model calls cost (issue 29, point 4): the model proxy appends each call's
 * charge as it settles it, so a worker killed mid-attempt leaves its spend on disk for the next attempt of the same
 * station to charge. It lives beside the station folders, never in a folder the container mounts: the container
 * must not be able to shrink (or inflate) what the ticket is charged.
 */

/** Past this many records nothing more is appended: a runaway attempt cannot fill the disk through its ledger. */
export const MAX_LEDGER_RECORDS = 10_000;
/** What is read of a ledger; a record line is well under 200 bytes, so this holds the bound with room to spare. */
const MAX_LEDGER_BYTES = MAX_LEDGER_RECORDS * 256;

export interface SpendRecord extends TokenUsage {
  at: string;
  /** The call was charged its reservation (the upstream reported no usage). */
  estimated?: true;
}

/** What a leftover ledger charges: the sum of its well-formed records. */
export interface LedgerSpend extends TokenUsage {
  records: number;
}

export interface SpendLedgerWriter {
  append(record: SpendRecord): void;
}

const count = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;

/** One record from one line, or undefined for anything else (a torn last line, a hand-edited file). Pure. */
export function parseSpendRecord(line: string): SpendRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { at, input_tokens, output_tokens, estimated } = value as Record<string, unknown>;
  if (typeof at !== 'string' || !count(input_tokens) || !count(output_tokens)) return undefined;
  return { at, input_tokens, output_tokens, ...(estimated === true ? { estimated } : {}) };
}

/** The ledger's total; malformed lines are skipped, and only the first MAX_LEDGER_RECORDS count. Pure. */
export function sumSpendLedger(text: string): LedgerSpend {
  const spend: LedgerSpend = { input_tokens: 0, output_tokens: 0, records: 0 };
  for (const line of text.split('\n')) {
    if (spend.records >= MAX_LEDGER_RECORDS) break;
    const record = line.trim() ? parseSpendRecord(line) : undefined;
    if (!record) continue;
    spend.input_tokens += record.input_tokens;
    spend.output_tokens += record.output_tokens;
    spend.records += 1;
  }
  return spend;
}

/** Reads a leftover ledger (none: zero); a link is not followed and at most MAX_LEDGER_BYTES are read. */
export async function readSpendLedger(path: string): Promise<LedgerSpend> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { input_tokens: 0, output_tokens: 0, records: 0 };
    throw error;
  }
  try {
    const buffer = Buffer.alloc(MAX_LEDGER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_LEDGER_BYTES, 0);
    return sumSpendLedger(buffer.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await handle.close();
  }
}

export async function removeSpendLedger(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * A writer that appends to the ledger, starting from the `existing` records a leftover already holds. The append is
 * synchronous on purpose: the record is in the file before the proxy answers the container, so a kill after the
 * agent saw an answer cannot lose that answer's charge. A failed write is dropped (the call itself is still counted
 * in memory); the ledger only matters when the worker dies.
 */
export function spendLedgerWriter(path: string, existing = 0): SpendLedgerWriter {
  let written = existing;
  return {
    append(record) {
      if (written >= MAX_LEDGER_RECORDS) return;
      written += 1;
      try {
        const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
        try {
          writeSync(fd, `${JSON.stringify(record)}\n`);
        } finally {
          closeSync(fd);
        }
      } catch { /* see above */ }
    },
  };
}

/** A leftover's charge added to what the new attempt spent. Pure. */
export function chargedUsage(leftover: TokenUsage, attempt: TokenUsage): TokenUsage {
  return { input_tokens: leftover.input_tokens + attempt.input_tokens, output_tokens: leftover.output_tokens + attempt.output_tokens };
}

/**
 * Whether an attempt's end takes its ledger away. A result carries the charge (the leftover included); so does a
 * station failure when a budget meter reports the attempt's spend on it. Any other error (the activity is retried
 * as is, or cancelled) reports no usage, so the ledger stays for the next attempt to charge. Pure.
 */
export function ledgerAfterAttempt(end: 'returned' | 'station_failure' | 'other_error', metered: boolean): 'remove' | 'keep' {
  if (end === 'returned') return 'remove';
  return end === 'station_failure' && metered ? 'remove' : 'keep';
}
