import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureSearchAttributes, waitUntilSearchAttributesUsable } from '../../src/temporal/search-attributes';

/**
 * A worker registers the service's search attributes at start and, when it added any, waits until a query on them is
 * accepted (SQL visibility learns a new alias only when its namespace cache refreshes) before it takes work.
 */
describe('registering the custom search attributes against a real server', () => {
  let connection: Connection;

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });

  afterAll(async () => {
    await connection?.close();
  });

  it('adds what is missing once, and the added attribute can be queried when the wait returns', async () => {
    const first = await ensureSearchAttributes(connection, 'default', { ServiceProbeAttribute: 'Keyword' });
    const second = await ensureSearchAttributes(connection, 'default', { ServiceProbeAttribute: 'Keyword' });
    expect([...first.added, ...first.existing]).toEqual(['ServiceProbeAttribute']);
    expect(second).toEqual({ added: [], existing: ['ServiceProbeAttribute'] });
    await waitUntilSearchAttributesUsable(connection, 'default', ['ServiceProbeAttribute'], 10_000);
    await expect(connection.workflowService.listWorkflowExecutions({ namespace: 'default', query: 'ServiceProbeAttribute = "x"', pageSize: 1 })).resolves.toBeDefined();
  });

  it('gives up after its timeout, naming the attribute that never became usable', async () => {
    const began = Date.now();
    await expect(waitUntilSearchAttributesUsable(connection, 'default', ['ServiceNeverRegistered'], 1_000))
      .rejects.toThrow(/the search attributes ServiceNeverRegistered were not usable within 1 s: .*ServiceNeverRegistered/);
    expect(Date.now() - began).toBeLessThan(5_000);
  });
});
