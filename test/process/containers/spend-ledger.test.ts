import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModelProxy } from '../../../src/containers/model-proxy';
import {
  chargedUsage, ledgerAfterAttempt, MAX_LEDGER_RECORDS, readSpendLedger, removeSpendLedger, spendLedgerWriter, sumSpendLedger,
} from '../../../src/containers/spend-ledger';
import { unixSocketFetch } from '../../../src/agent/unix-socket-fetch';
import { startModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';

const dir = mkdtempSync(join(tmpdir(), 'spend-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = '2024-01-01T00:00:00.000Z';

describe('the spend ledger', () => {
  it('appends records to a file only the worker can read, reads their sum and is removed', async () => {
    const path = join(dir, 'a.jsonl');
    expect(await readSpendLedger(path)).toEqual({ input_tokens: 0, output_tokens: 0, records: 0 });
    const writer = spendLedgerWriter(path);
    writer.append({ at, input_tokens: 10, output_tokens: 5 });
    writer.append({ at, input_tokens: 7, output_tokens: 3, estimated: true });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await readSpendLedger(path)).toEqual({ input_tokens: 17, output_tokens: 8, records: 2 });
    await removeSpendLedger(path);
    expect(existsSync(path)).toBe(false);
    await removeSpendLedger(path); // already gone: no error
  });

  it('skips malformed lines (a torn last line, wrong types, negative counts) and keeps the rest', async () => {
    const path = join(dir, 'b.jsonl');
    writeFileSync(path, [
      JSON.stringify({ at, input_tokens: 100, output_tokens: 20 }),
      'not json',
      JSON.stringify({ at, input_tokens: '5', output_tokens: 1 }),
      JSON.stringify({ at, input_tokens: -3, output_tokens: 1 }),
      JSON.stringify([1, 2]),
      '',
      JSON.stringify({ at, input_tokens: 1, output_tokens: 2 }),
      '{"at":"x","input_tok',
    ].join('\n'));
    expect(await readSpendLedger(path)).toEqual({ input_tokens: 101, output_tokens: 22, records: 2 });
  });

  it('does not follow a link when reading or appending', async () => {
    const target = join(dir, 'target.jsonl');
    writeFileSync(target, `${JSON.stringify({ at, input_tokens: 1, output_tokens: 1 })}\n`);
    const link = join(dir, 'link.jsonl');
    symlinkSync(target, link);
    await expect(readSpendLedger(link)).rejects.toThrow();
    spendLedgerWriter(link).append({ at, input_tokens: 9, output_tokens: 9 });
    expect(readFileSync(target, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('stops appending at the bound, counting the records a leftover already holds', async () => {
    const path = join(dir, 'c.jsonl');
    const writer = spendLedgerWriter(path, MAX_LEDGER_RECORDS - 2);
    for (let i = 0; i < 5; i += 1) writer.append({ at, input_tokens: 1, output_tokens: 0 });
    expect((await readSpendLedger(path)).records).toBe(2);
    const many = Array.from({ length: MAX_LEDGER_RECORDS + 5 }, () => JSON.stringify({ at, input_tokens: 1, output_tokens: 0 })).join('\n');
    expect(sumSpendLedger(many).records).toBe(MAX_LEDGER_RECORDS);
  });
});

describe('charging a leftover', () => {
  it('adds the leftover to what the new attempt spent', () => {
    expect(chargedUsage({ input_tokens: 100, output_tokens: 20 }, { input_tokens: 5, output_tokens: 1 })).toEqual({ input_tokens: 105, output_tokens: 21 });
    expect(chargedUsage({ input_tokens: 0, output_tokens: 0 }, { input_tokens: 5, output_tokens: 1 })).toEqual({ input_tokens: 5, output_tokens: 1 });
  });

  it('removes the ledger only when the attempt\'s end reports its usage', () => {
    expect(ledgerAfterAttempt('returned', false)).toBe('remove');
    expect(ledgerAfterAttempt('returned', true)).toBe('remove');
    // The budget guard puts the meter's spend (leftover included) on a station failure.
    expect(ledgerAfterAttempt('station_failure', true)).toBe('remove');
    expect(ledgerAfterAttempt('station_failure', false)).toBe('keep');
    // Retried or cancelled as is: nothing reported, so the next attempt charges it.
    expect(ledgerAfterAttempt('other_error', true)).toBe('keep');
  });
});

describe('the model proxy with a spend ledger', () => {
  it('appends each settled call\'s charge, and nothing for a refusal', async () => {
    const model = await startModelSimulator();
    const path = join(dir, 'proxy.jsonl');
    const proxy = await startModelProxy({ socketPath: join(dir, 'p.sock'), upstream: { baseUrl: model.url, model: 'allowed', maxOutputTokens: 512 }, tokenBudget: null, spendLedger: spendLedgerWriter(path) });
    const call = (body: unknown) => unixSocketFetch(proxy.socketPath)('http://model-proxy/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    try {
      model.script({ content: 'a', usage: { prompt_tokens: 30, completion_tokens: 25 } });
      model.script({ content: 'b', usage: { prompt_tokens: 40, completion_tokens: 5 } });
      expect((await call({ model: 'allowed', messages: [{ role: 'user', content: 'x' }] })).status).toBe(200);
      expect((await call({ model: 'other', messages: [{ role: 'user', content: 'x' }] })).status).toBe(403);
      expect((await call({ model: 'allowed', messages: [{ role: 'user', content: 'y' }] })).status).toBe(200);
      // Written before the answer reached the container: no need to close the proxy first.
      expect(await readSpendLedger(path)).toEqual({ input_tokens: 70, output_tokens: 30, records: 2 });
    } finally {
      await proxy.close();
      await model.close();
    }
  });
});
