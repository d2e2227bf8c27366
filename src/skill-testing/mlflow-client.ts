import { redactSecrets } from '../redaction/redact-secrets';

/**
 * A client of the MLflow tracking REST API (2.0): experiments/get-by-name and create, runs/create, runs/log-batch,
 * runs/update, and artifact upload through the tracking server's artifact proxy (`mlflow-artifacts` API, used when
 * the server runs with --serve-artifacts, the default since MLflow 2.0). Credentials come from MLflow's own variables:
 * MLFLOW_TRACKING_TOKEN (bearer) or MLFLOW_TRACKING_USERNAME + MLFLOW_TRACKING_PASSWORD (basic).
 */
export class MlflowError extends Error {
  override readonly name = 'MlflowError';
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

export interface MlflowParam { key: string; value: string }
export interface MlflowMetric { key: string; value: number; timestamp: number; step: number }
export interface MlflowTag { key: string; value: string }
export interface MlflowRun { runId: string; artifactUri: string; experimentId: string }

/** MLflow's limits per log-batch request and per parameter value (older servers: 500 characters). */
const MAX_PARAMS = 100;
const MAX_METRICS = 1000;
const MAX_PARAM_VALUE = 500;

/** Metric and parameter keys may hold letters, digits, `_ - . /` and spaces. */
export function mlflowKey(key: string): string {
  return key.replace(/[^A-Za-z0-9_\-./ ]/g, '_').slice(0, 250);
}

/** The path of a run's artifact root on the artifact proxy, or undefined when the root is not served by it. */
export function artifactProxyPath(artifactUri: string): string | undefined {
  const match = /^mlflow-artifacts:(?:\/\/[^/]*)?\/?(.*)$/.exec(artifactUri);
  return match ? match[1]!.replace(/\/+$/, '') : undefined;
}

export interface MlflowClientOptions {
  trackingUri: string;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export function createMlflowClient(options: MlflowClientOptions) {
  const base = options.trackingUri.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) throw new MlflowError(`--mlflow ${options.trackingUri}: expected the tracking server's http(s) address, e.g. http://127.0.0.1:5000`);
  const env = options.env ?? process.env;
  const doFetch = options.fetch ?? fetch;
  const auth: Record<string, string> = env.MLFLOW_TRACKING_TOKEN
    ? { authorization: `Bearer ${env.MLFLOW_TRACKING_TOKEN}` }
    : env.MLFLOW_TRACKING_USERNAME ? { authorization: `Basic ${Buffer.from(`${env.MLFLOW_TRACKING_USERNAME}:${env.MLFLOW_TRACKING_PASSWORD ?? ''}`).toString('base64')}` } : {};

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(`${base}/api/2.0/mlflow/${path}`, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new MlflowError(`MLflow at ${base} cannot be reached (${path}): ${redactSecrets((error as Error).message)}`);
    }
    const text = await response.text();
    if (!response.ok) throw new MlflowError(`MLflow ${method} ${path} answered HTTP ${response.status}: ${redactSecrets(text.slice(0, 300))}`, response.status);
    try {
      return (text ? JSON.parse(text) : {}) as T;
    } catch {
      throw new MlflowError(`MLflow ${method} ${path} answered something that is not JSON: ${redactSecrets(text.slice(0, 200))}`);
    }
  }

  return {
    trackingUri: base,

    /** The experiment's id, created when it does not exist yet. */
    async ensureExperiment(name: string): Promise<string> {
      try {
        const found = await call<{ experiment?: { experiment_id?: string; lifecycle_stage?: string } }>('GET', `experiments/get-by-name?experiment_name=${encodeURIComponent(name)}`);
        if (found.experiment?.experiment_id) {
          if (found.experiment.lifecycle_stage === 'deleted') throw new MlflowError(`MLflow experiment "${name}" is deleted: restore it or choose another --mlflow-experiment`);
          return found.experiment.experiment_id;
        }
      } catch (error) {
        if (!(error instanceof MlflowError) || error.status !== 404) throw error;
      }
      const created = await call<{ experiment_id?: string }>('POST', 'experiments/create', { name });
      if (!created.experiment_id) throw new MlflowError('MLflow experiments/create answered without an experiment_id');
      return created.experiment_id;
    },

    async createRun(experimentId: string, runName: string, tags: MlflowTag[]): Promise<MlflowRun> {
      const created = await call<{ run?: { info?: { run_id?: string; artifact_uri?: string } } }>('POST', 'runs/create', { experiment_id: experimentId, run_name: runName, start_time: Date.now(), tags });
      const runId = created.run?.info?.run_id;
      if (!runId) throw new MlflowError('MLflow runs/create answered without a run_id');
      return { runId, artifactUri: created.run?.info?.artifact_uri ?? '', experimentId };
    },

    /** Parameters, metrics and tags, split into requests within MLflow's limits. */
    async logBatch(runId: string, data: { params?: MlflowParam[]; metrics?: MlflowMetric[]; tags?: MlflowTag[] }): Promise<number> {
      const params = (data.params ?? []).map((p) => ({ key: mlflowKey(p.key), value: p.value.slice(0, MAX_PARAM_VALUE) }));
      const metrics = (data.metrics ?? []).filter((m) => Number.isFinite(m.value)).map((m) => ({ ...m, key: mlflowKey(m.key) }));
      const tags = data.tags ?? [];
      let requests = 0;
      for (let p = 0, m = 0, first = true; first || p < params.length || m < metrics.length; first = false) {
        await call('POST', 'runs/log-batch', { run_id: runId, params: params.slice(p, p + MAX_PARAMS), metrics: metrics.slice(m, m + MAX_METRICS), tags: first ? tags : [] });
        p += MAX_PARAMS;
        m += MAX_METRICS;
        requests += 1;
      }
      return requests;
    },

    async finishRun(runId: string, status: 'FINISHED' | 'FAILED'): Promise<void> {
      await call('POST', 'runs/update', { run_id: runId, status, end_time: Date.now() });
    },

    /** Uploads one file under the run's artifact root; false when that root is not on the artifact proxy. */
    async uploadArtifact(run: MlflowRun, path: string, body: Buffer | string, contentType = 'application/octet-stream'): Promise<boolean> {
      const root = artifactProxyPath(run.artifactUri);
      if (root === undefined) return false;
      const url = `${base}/api/2.0/mlflow-artifacts/artifacts/${[root, path].filter(Boolean).join('/').split('/').map(encodeURIComponent).join('/')}`;
      let response: Response;
      try {
        response = await doFetch(url, { method: 'PUT', headers: { ...auth, 'content-type': contentType }, body: typeof body === 'string' ? body : new Uint8Array(body) });
      } catch (error) {
        throw new MlflowError(`MLflow artifact upload of ${path} failed: ${redactSecrets((error as Error).message)}`);
      }
      if (!response.ok) throw new MlflowError(`MLflow artifact upload of ${path} answered HTTP ${response.status}: ${redactSecrets((await response.text()).slice(0, 300))}`, response.status);
      return true;
    },

    runUrl(run: MlflowRun): string {
      return `${base}/#/experiments/${run.experimentId}/runs/${run.runId}`;
    },
  };
}

export type MlflowClient = ReturnType<typeof createMlflowClient>;
