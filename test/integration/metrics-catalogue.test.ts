import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/fixtures';
import { freePort } from '../helpers/free-port';
import { startService } from '../helpers/service-process';
import { exposedFamilies, isExposed, metricNamesUsed, SYNTHETIC_METRICS } from '../helpers/promql-metric-names';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, postWebhook } from '../helpers/webhooks';

const SECRET = 'metrics-catalogue-tracker-secret';
type Json = Record<string, any>;

function createdPayload(key: string): Json {
  const payload = fixture<Json>('tracker/jira-issue-created.json');
  payload.issue.key = key;
  payload.issue.id = `9${key.replace(/\D/g, '')}`;
  payload.issue.fields.labels = ['service:managed'];
  payload.issue.fields.issuetype.name = 'Feature';
  return payload;
}

/** One sample's value from a Prometheus text exposition, or undefined when the series is not there. */
function sampleValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * Issue 32, point 3: the dashboard (deploy/grafana) and the alert rules (deploy/prometheus) read only metrics that a
 * real gateway and a real worker export, and the series the alerts watch move when what they watch happens.
 */
describe('the metrics catalogue of a running gateway and worker', () => {
  let world: World;
  let stack: ServiceStack;
  let gatewayText = '';
  let workerText = '';

  beforeAll(async () => {
    world = await startWorld({ name: 'metrics-catalogue', env: { TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_POLL_INTERVAL_SECONDS: '0' } });
    stack = world.stack;
    const webhooks = `${stack.api}/api/v1/webhooks/tracker`;
    expect((await postWebhook(webhooks, createdPayload('MCAT-1'), { secret: SECRET })).status).toBe(200);
    expect((await postWebhook(webhooks, createdPayload('MCAT-2'), { secret: 'not-the-secret' })).status).toBe(401);
    // The gateway recounts the open tickets from visibility at most every 30 s: the ticket shows within one recount.
    gatewayText = await eventually(async () => {
      const text = await (await fetch(`${stack.api}/metrics`)).text();
      return /^service_tickets\{workflow_type="feature",status="[a-z]+",position="[^"]+",blocked="(true|false)"\} 1$/m.test(text) ? text : undefined;
    }, 90_000, 'the started ticket counted in service_tickets');
    workerText = await eventually(async () => {
      const text = await (await fetch(stack.workerMetricsUrl)).text();
      return sampleValue(text, 'service_worker_polling{poller="workflow"}') === 1 ? text : undefined;
    }, 30_000, 'the worker reporting an outstanding workflow poll');
  }, 180_000);

  afterAll(async () => {
    if (stack) expect(await stack.stop()).toEqual([0, 0]);
    await world?.close();
  });

  it('every metric the dashboards and the alert rules read is exported by the gateway and by the worker', () => {
    const gateway = exposedFamilies(gatewayText);
    const worker = exposedFamilies(workerText);
    const used = metricNamesUsed();
    expect(used.size).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const [name, where] of used) {
      if (SYNTHETIC_METRICS.has(name)) continue;
      if (!isExposed(name, gateway)) missing.push(`${name} (gateway; used by ${[...new Set(where)].join(', ')})`);
      if (!isExposed(name, worker)) missing.push(`${name} (worker; used by ${[...new Set(where)].join(', ')})`);
    }
    expect(missing).toEqual([]);
  });

  it('the series the alerts watch move: webhook answers by status, the ticket count and its age, worker polling', () => {
    expect(sampleValue(gatewayText, 'service_webhook_responses_total{source="tracker",code="200"}')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(gatewayText, 'service_webhook_responses_total{source="tracker",code="401"}')).toBeGreaterThanOrEqual(1);
    // Present at 0 before the first failure, so rate() sees the first 503.
    expect(sampleValue(gatewayText, 'service_webhook_responses_total{source="gitlab",code="503"}')).toBe(0);
    const countedAt = sampleValue(gatewayText, 'service_ticket_census_timestamp_seconds') ?? 0;
    expect(Math.abs(Date.now() / 1000 - countedAt)).toBeLessThan(120);
    expect(sampleValue(workerText, 'service_worker_polling{poller="workflow"}')).toBe(1);
    expect(sampleValue(gatewayText, 'service_tickets_blocked_total{reason="ci_fix_limit"}')).toBe(0);
  });

  it('the worker counts the stations it ran, the effects it attempted and the block the ticket ran into', async () => {
    // Without a model configuration the ticket passes intake and stops at generate_prd (station_not_available); the
    // tracker writes reporting the block fail for good because this worker has no tracker configured.
    const expected = [
      'service_station_runs_total{station="intake",outcome="configured"}',
      'service_station_runs_total{station="generate_prd",outcome="error"}',
      'service_tickets_blocked_total{reason="station_not_available"}',
      'service_effect_attempts_total{kind="tracker.labels",status="terminal_failure"}',
      'service_effect_attempts_total{kind="tracker.comment",status="terminal_failure"}',
    ];
    const text = await eventually(async () => {
      const scraped = await (await fetch(stack.workerMetricsUrl)).text();
      return expected.every((series) => (sampleValue(scraped, series) ?? 0) >= 1) ? scraped : undefined;
    }, 60_000, 'station runs, the block and effect attempts on the worker');
    expect(sampleValue(text, 'service_station_duration_seconds_count{station="intake"}')).toBe(1);
    expect(sampleValue(text, 'service_tickets_blocked_total{reason="budget_exhausted"}')).toBe(0);
  });
});

describe('the alert series of a gateway that cannot reach Temporal', () => {
  it('counts the 503 answers, still answers its scrape, and leaves the ticket count unset', async () => {
    const port = await freePort();
    const gateway = startService(['gateway'], {
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      SERVICE_GATEWAY_PORT: String(port),
      TRACKER_WEBHOOK_SECRET: SECRET,
      SCMHOST_WEBHOOK_SECRET: 'metrics-catalogue-unused',
    });
    try {
      await gateway.waitForOutput(/gateway listening on/);
      const response = await postWebhook(`http://127.0.0.1:${port}/api/v1/webhooks/tracker`, createdPayload('MCAT-3'), { secret: SECRET });
      expect(response.status).toBe(503);
      const started = Date.now();
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      // The census waits at most 3 s for visibility, so Prometheus still gets every other family in time.
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(sampleValue(text, 'service_webhook_responses_total{source="tracker",code="503"}')).toBe(1);
      // Never counted: ServiceTicketCensusStale sees a timestamp of 0.
      expect(sampleValue(text, 'service_ticket_census_timestamp_seconds')).toBe(0);
    } finally {
      // Exits 0: the ticket count that was still retrying Temporal settles before the connection closes.
      expect(await gateway.stop(), gateway.output()).toBe(0);
    }
  }, 60_000);
});
