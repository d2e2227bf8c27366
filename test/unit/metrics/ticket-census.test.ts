import { describe, expect, it } from 'vitest';
import { createServiceMetrics } from '../../../src/metrics/service-metrics';
import { censusRows, ticketCensus, type CensusEntry } from '../../../src/metrics/ticket-census';

const entry = (status: string, position: string, blocked = false, workflowType = 'feature'): CensusEntry => ({ workflowType, status, position, blocked });

const listing = async (entries: CensusEntry[]): Promise<CensusEntry[]> => [...entries];

describe('censusRows', () => {
  it('counts open tickets per type, status, position and blocked flag', () => {
    expect(censusRows([entry('running', 'plan'), entry('running', 'plan'), entry('blocked', 'plan', true), entry('waiting', 'review', false, 'bug')])).toEqual([
      { labels: { workflow_type: 'feature', status: 'running', position: 'plan', blocked: 'false' }, count: 2 },
      { labels: { workflow_type: 'feature', status: 'blocked', position: 'plan', blocked: 'true' }, count: 1 },
      { labels: { workflow_type: 'bug', status: 'waiting', position: 'review', blocked: 'false' }, count: 1 },
    ]);
  });
});

describe('ticketCensus', () => {
  it('recounts when scraped, at most every maxAgeMs, and drops label sets no ticket holds any more', async () => {
    let now = 1_000_000;
    let tickets = [entry('running', 'plan'), entry('blocked', 'code', true)];
    let listings = 0;
    const metrics = createServiceMetrics({ countTickets: () => census.count() });
    const census = ticketCensus(metrics, { list: () => { listings += 1; return listing(tickets); }, maxAgeMs: 30_000, now: () => now });
    expect(await metrics.registry.metrics()).toContain('service_tickets{workflow_type="feature",status="blocked",position="code",blocked="true"} 1');
    tickets = [entry('running', 'review')];
    now += 10_000;
    expect(await metrics.registry.metrics()).toContain('position="code"');
    expect(listings).toBe(1);
    now += 25_000;
    const text = await metrics.registry.metrics();
    expect(listings).toBe(2);
    expect(text).toContain('service_tickets{workflow_type="feature",status="running",position="review",blocked="false"} 1');
    expect(text).not.toContain('position="code"');
    expect(text).toContain(`service_ticket_census_timestamp_seconds ${now / 1000}`);
  });

  it('keeps the last count and its timestamp when visibility cannot be listed, and says why', async () => {
    let now = 2_000_000;
    let failing = false;
    const errors: unknown[] = [];
    const metrics = createServiceMetrics({ countTickets: () => census.count() });
    const census = ticketCensus(metrics, {
      list: () => (failing ? Promise.reject(new Error('visibility unavailable')) : listing([entry('running', 'plan')])),
      maxAgeMs: 1_000, now: () => now, onError: (error) => errors.push(error),
    });
    await metrics.registry.metrics();
    failing = true;
    now += 5_000;
    const text = await metrics.registry.metrics();
    expect(text).toContain('service_tickets{workflow_type="feature",status="running",position="plan",blocked="false"} 1');
    expect(text).toContain('service_ticket_census_timestamp_seconds 2000');
    expect(errors.map((error) => (error as Error).message)).toEqual(['visibility unavailable']);
  });

  it('answers a scrape with the previous count when the listing is slow; stop waits for that listing, then counts no more', async () => {
    let release: () => void = () => undefined;
    let listings = 0;
    const metrics = createServiceMetrics({ countTickets: () => census.count() });
    const census = ticketCensus(metrics, {
      list: async () => { listings += 1; await new Promise<void>((resolve) => { release = resolve; }); return [entry('running', 'plan')]; },
      waitMs: 50,
      maxAgeMs: 0,
    });
    const started = Date.now();
    expect(await metrics.registry.metrics()).toContain('service_ticket_census_timestamp_seconds 0');
    expect(Date.now() - started).toBeLessThan(2_000);
    let stopped = false;
    const stopping = census.stop().then(() => { stopped = true; });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
    await metrics.registry.metrics();
    expect(listings).toBe(1);
  });
});
