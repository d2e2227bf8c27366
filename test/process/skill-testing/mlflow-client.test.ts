import { afterEach, describe, expect, it } from 'vitest';
import { artifactProxyPath, createMlflowClient, mlflowKey } from '../../../src/skill-testing/mlflow-client';
import { startMlflowFake, type MlflowFake } from '../../helpers/mlflow-fake';

describe('MLflow tracking client against a recording fake', () => {
  let fake: MlflowFake | undefined;
  afterEach(async () => fake?.close());

  it('creates the experiment once, then finds it by name', async () => {
    fake = await startMlflowFake();
    const client = createMlflowClient({ trackingUri: `${fake.url}/`, env: {} });
    const first = await client.ensureExperiment('skill evals');
    expect(await client.ensureExperiment('skill evals')).toBe(first);
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/2.0/mlflow/experiments/get-by-name', 'POST /api/2.0/mlflow/experiments/create', 'GET /api/2.0/mlflow/experiments/get-by-name',
    ]);
    expect(fake.calls[0]!.query).toEqual({ experiment_name: 'skill evals' });
  });

  it('splits log-batch at 100 parameters, cleans keys, drops non-finite metrics, and sends the bearer token', async () => {
    fake = await startMlflowFake({ existing: { e: '7' } });
    const client = createMlflowClient({ trackingUri: fake.url, env: { MLFLOW_TRACKING_TOKEN: 'mlflow-token-123456' } });
    const run = await client.createRun('7', 'r', [{ key: 'a', value: 'b' }]);
    const params = Array.from({ length: 150 }, (_, i) => ({ key: `p${i}`, value: 'x'.repeat(600) }));
    const requests = await client.logBatch(run.runId, { params, metrics: [{ key: 'case:1.score', value: 2, timestamp: 1, step: 0 }, { key: 'nan', value: Number.NaN, timestamp: 1, step: 0 }] });
    expect(requests).toBe(2);
    const stored = fake.runs.get(run.runId)!;
    expect(Object.keys(stored.params)).toHaveLength(150);
    expect(stored.params.p0).toHaveLength(500);
    expect(stored.metrics).toEqual({ 'case_1.score': 2 });
    expect(fake.calls.every((c) => c.authorization === 'Bearer mlflow-token-123456')).toBe(true);
  });

  it('uploads artifacts through the artifact proxy, and reports a root it cannot reach', async () => {
    fake = await startMlflowFake({ existing: { e: '7' } });
    const client = createMlflowClient({ trackingUri: fake.url, env: { MLFLOW_TRACKING_USERNAME: 'me', MLFLOW_TRACKING_PASSWORD: 'pw' } });
    const run = await client.createRun('7', 'r', []);
    expect(await client.uploadArtifact(run, 'case a/prd.md', '# PRD', 'text/plain')).toBe(true);
    expect(fake.runs.get(run.runId)!.artifacts).toEqual({ 'case a/prd.md': '# PRD' });
    expect(fake.calls.at(-1)!.path).toBe(`/api/2.0/mlflow-artifacts/artifacts/7/${run.runId}/artifacts/case%20a/prd.md`);
    expect(fake.calls.at(-1)!.authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
    expect(await client.uploadArtifact({ ...run, artifactUri: 's3://bucket/x' }, 'a', 'b')).toBe(false);
    expect(artifactProxyPath('mlflow-artifacts://host:5000/1/abc/artifacts')).toBe('1/abc/artifacts');
    expect(mlflowKey('a:b c/d')).toBe('a_b c/d');
  });

  it('says which call failed, with the status, and refuses a tracking URI that is not http(s)', async () => {
    fake = await startMlflowFake();
    const client = createMlflowClient({ trackingUri: fake.url, env: {} });
    await expect(client.logBatch('nope', { params: [{ key: 'a', value: 'b' }] })).rejects.toThrow(/MLflow POST runs\/log-batch answered HTTP 404: .*RESOURCE_DOES_NOT_EXIST/);
    expect(() => createMlflowClient({ trackingUri: 'file:///tmp/mlruns' })).toThrow(/expected the tracking server's http\(s\) address/);
    await expect(createMlflowClient({ trackingUri: 'http://127.0.0.1:9', env: {} }).ensureExperiment('x')).rejects.toThrow(/cannot be reached/);
  });
});
