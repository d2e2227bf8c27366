import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../../src/config/service-config';

describe('loadServiceConfig', () => {
  it('applies the spec defaults when nothing is set', () => {
    const { config, problems } = loadServiceConfig({});
    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      requireProjectConfig: true,
      ci: { ignoredChecks: [], maxFixAttempts: 5 },
      container: { memoryLimit: '4g', cpuLimit: 2, timeoutSeconds: 1800 },
      autoReview: { maxRetries: 3, pollIntervalSeconds: 5, recordPolledFiles: 'none' },
      temporal: { address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'service-tickets' },
      gateway: { port: 8000 },
      worker: { metricsPort: 8001 },
      logLevel: 'info',
    });
    expect(config?.tracker.webhookSecret).toBeUndefined();
  });

  it('reads the aliases the spec names', () => {
    const { config } = loadServiceConfig({ CONTAINER_MEMORY: '2G', CONTAINER_CPUS: '1.5', CI_FIX_MAX_RETRIES: '7' });
    expect(config?.container).toMatchObject({ memoryLimit: '2g', cpuLimit: 1.5 });
    expect(config?.ci.maxFixAttempts).toBe(7);
  });

  it('reports an alias that contradicts its primary variable', () => {
    const { problems } = loadServiceConfig({ CI_MAX_FIX_ATTEMPTS: '5', CI_FIX_MAX_RETRIES: '3' });
    expect(problems).toEqual([expect.stringContaining('CI_MAX_FIX_ATTEMPTS and its alias CI_FIX_MAX_RETRIES')]);
  });

  it('prints one line per invalid variable, naming it and the value', () => {
    const { config, problems } = loadServiceConfig({
      CI_MAX_FIX_ATTEMPTS: 'five',
      CONTAINER_MEMORY_LIMIT: 'lots',
      SERVICE_REQUIRE_PROJECT_CONFIG: 'maybe',
      TRACKER_BASE_URL: 'not a url',
      LOG_LEVEL: 'LOUD',
      SCMHOST_DEFAULT_REPO: 'just-a-name',
    });
    expect(config).toBeUndefined();
    expect(problems).toHaveLength(6);
    expect(problems).toEqual(expect.arrayContaining([
      'CI_MAX_FIX_ATTEMPTS: expected a whole number from 0 to 100, got "five"',
      'CONTAINER_MEMORY_LIMIT: expected a size like 512m or 4g, got "lots"',
      'SERVICE_REQUIRE_PROJECT_CONFIG: expected true or false, got "maybe"',
      'TRACKER_BASE_URL: expected an http(s) URL, got "not a url"',
      'LOG_LEVEL: expected DEBUG, INFO, WARNING or ERROR, got "LOUD"',
      'SCMHOST_DEFAULT_REPO: expected owner/repo, got "just-a-name"',
    ]));
  });

  it('never echoes a secret value in a problem line', () => {
    const { problems } = loadServiceConfig({ TRACKER_API_TOKEN: 'tok-very-secret-1234' });
    expect(problems).toEqual(['TRACKER_USER_EMAIL and TRACKER_API_TOKEN go together: set both or neither']);
    expect(problems.join('\n')).not.toContain('tok-very-secret-1234');
  });

  it('warns when SERVICE_BOT_COMMENT_PREFIX is set and keeps it as given', () => {
    const { config, warnings } = loadServiceConfig({ SERVICE_BOT_COMMENT_PREFIX: '[bot] ' });
    expect(config?.botCommentPrefix).toBe('[bot] ');
    expect(warnings).toEqual([expect.stringContaining('SERVICE_BOT_COMMENT_PREFIX is set')]);
  });

  it('sizes the worker\'s workflow cache at 1,000 unless asked, and refuses a size the SDK cannot use', () => {
    expect(loadServiceConfig({}).config?.worker.maxCachedWorkflows).toBe(1000);
    expect(loadServiceConfig({ SERVICE_WORKER_MAX_CACHED_WORKFLOWS: '1500' }).config?.worker.maxCachedWorkflows).toBe(1500);
    expect(loadServiceConfig({ SERVICE_WORKER_MAX_CACHED_WORKFLOWS: '1' }).problems).toEqual(['SERVICE_WORKER_MAX_CACHED_WORKFLOWS: expected a whole number from 2 to 1000000, got "1"']);
    expect(loadServiceConfig({ SERVICE_WORKER_MAX_CACHED_WORKFLOWS: 'lots' }).problems).toHaveLength(1);
  });

  it('limits the worker\'s heap growth to 25 % unless asked, 0 leaving V8 its own', () => {
    expect(loadServiceConfig({}).config?.worker.heapGrowingPercent).toBe(25);
    expect(loadServiceConfig({ SERVICE_WORKER_HEAP_GROWING_PERCENT: '0' }).config?.worker.heapGrowingPercent).toBe(0);
    expect(loadServiceConfig({ SERVICE_WORKER_HEAP_GROWING_PERCENT: '-5' }).problems).toEqual(['SERVICE_WORKER_HEAP_GROWING_PERCENT: expected a whole number from 0 to 1000, got "-5"']);
  });

  it('reads TLS and the API key toward Temporal under Temporal\'s own variable names', () => {
    expect(loadServiceConfig({}).config?.temporal).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'service-tickets' });
    expect(loadServiceConfig({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/ca.pem', TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' }).config?.temporal.tls)
      .toEqual({ serverCaCertPath: '/ca.pem', serverName: 'temporal.internal' });
    expect(loadServiceConfig({ TEMPORAL_TLS: 'true' }).config?.temporal.tls).toEqual({});
    // An API key alone means TLS (Temporal Cloud), unless TLS is switched off outright.
    expect(loadServiceConfig({ TEMPORAL_API_KEY: 'key-123456' }).config?.temporal).toMatchObject({ tls: {}, apiKey: 'key-123456' });
    expect(loadServiceConfig({ TEMPORAL_API_KEY: 'key-123456', TEMPORAL_TLS: 'false' }).config?.temporal.tls).toBeUndefined();
    expect(loadServiceConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' }).problems)
      .toEqual(['TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH: set both (a client certificate and its key) or neither']);
    expect(loadServiceConfig({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/ca.pem' }).problems)
      .toEqual(['TEMPORAL_TLS: "false" contradicts TEMPORAL_TLS_SERVER_CA_CERT_PATH']);
  });

  it('treats an empty webhook secret as "no signature check"', () => {
    expect(loadServiceConfig({ TRACKER_WEBHOOK_SECRET: '' }).config?.tracker.webhookSecret).toBeUndefined();
  });

  it('takes the Temporal frontend from STORE_URL and lets TEMPORAL_* win', () => {
    expect(loadServiceConfig({ STORE_URL: 'temporal://temporal.internal:7233/prod' }).config?.temporal)
      .toMatchObject({ address: 'temporal.internal:7233', namespace: 'prod' });
    expect(loadServiceConfig({ STORE_URL: 'temporal://a:1/x', TEMPORAL_ADDRESS: 'b:2', TEMPORAL_NAMESPACE: 'y' }).config?.temporal)
      .toMatchObject({ address: 'b:2', namespace: 'y' });
  });

  it('rejects a redis STORE_URL with an explanation', () => {
    const { problems } = loadServiceConfig({ STORE_URL: 'redis://localhost:6380/0' });
    expect(problems).toEqual(['STORE_URL: the state store is the Temporal frontend; use temporal://host:port/namespace or host:port (got a redis:// URL)']);
  });

  it('ignores unknown trace attributes with a warning', () => {
    const { config, warnings } = loadServiceConfig({ TRACING_TRACE_TAGS: 'ticket_key, shoe_size' });
    expect(config?.tracing.traceTags).toEqual(['ticket_key']);
    expect(warnings).toEqual(['TRACING_TRACE_TAGS: unknown trace attribute "shoe_size" is ignored']);
  });
});
