import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from '../../src/http/listen';

/** One request the fake received. */
export interface MlflowCall {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization?: string;
  contentType?: string;
  /** JSON bodies parsed; anything else (artifacts) as text. */
  body: any;
}

export interface FakeRun {
  run_id: string;
  experiment_id: string;
  run_name: string;
  status: string;
  tags: Record<string, string>;
  params: Record<string, string>;
  metrics: Record<string, number>;
  artifacts: Record<string, string>;
}

export interface MlflowFake {
  url: string;
  calls: MlflowCall[];
  experiments: Map<string, string>;
  runs: Map<string, FakeRun>;
  close(): Promise<void>;
}

/**
 * A stand-in for an MLflow tracking server with --serve-artifacts, speaking the REST API 2.0 the client uses
 * (experiments/get-by-name|create, runs/create|log-batch|update, PUT mlflow-artifacts/artifacts/...), keeping what
 * it was told and recording every call. `artifactRoot: 's3'` hands out runs whose artifacts live elsewhere.
 */
export async function startMlflowFake(options: { artifactRoot?: 'proxy' | 's3'; existing?: Record<string, string> } = {}): Promise<MlflowFake> {
  const calls: MlflowCall[] = [];
  const experiments = new Map<string, string>(Object.entries(options.existing ?? {}));
  const runs = new Map<string, FakeRun>();
  let counter = 0;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any = raw;
    if ((req.headers['content-type'] ?? '').includes('json') && raw && req.method === 'POST') body = JSON.parse(raw);
    calls.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /api/2.0/mlflow/experiments/get-by-name') {
      const id = experiments.get(url.searchParams.get('experiment_name') ?? '');
      return id ? send(res, 200, { experiment: { experiment_id: id, name: url.searchParams.get('experiment_name'), lifecycle_stage: 'active' } })
        : send(res, 404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'Could not find experiment' });
    }
    if (route === 'POST /api/2.0/mlflow/experiments/create') {
      const id = String(100 + experiments.size);
      experiments.set(body.name, id);
      return send(res, 200, { experiment_id: id });
    }
    if (route === 'POST /api/2.0/mlflow/runs/create') {
      counter += 1;
      const runId = `run${counter}`;
      const tags = Object.fromEntries((body.tags ?? []).map((t: { key: string; value: string }) => [t.key, t.value]));
      runs.set(runId, { run_id: runId, experiment_id: body.experiment_id, run_name: body.run_name, status: 'RUNNING', tags, params: {}, metrics: {}, artifacts: {} });
      const artifactUri = options.artifactRoot === 's3' ? `s3://bucket/${body.experiment_id}/${runId}/artifacts` : `mlflow-artifacts:/${body.experiment_id}/${runId}/artifacts`;
      return send(res, 200, { run: { info: { run_id: runId, experiment_id: body.experiment_id, status: 'RUNNING', artifact_uri: artifactUri } } });
    }
    if (route === 'POST /api/2.0/mlflow/runs/log-batch') {
      const run = runs.get(body.run_id);
      if (!run) return send(res, 404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: `run ${body.run_id}` });
      if ((body.params ?? []).length > 100 || (body.metrics ?? []).length > 1000) return send(res, 400, { error_code: 'INVALID_PARAMETER_VALUE', message: 'too many' });
      for (const p of body.params ?? []) run.params[p.key] = p.value;
      for (const m of body.metrics ?? []) run.metrics[m.key] = m.value;
      for (const t of body.tags ?? []) run.tags[t.key] = t.value;
      return send(res, 200, {});
    }
    if (route === 'POST /api/2.0/mlflow/runs/update') {
      const run = runs.get(body.run_id);
      if (!run) return send(res, 404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: `run ${body.run_id}` });
      run.status = body.status;
      return send(res, 200, { run_info: { run_id: run.run_id, status: run.status } });
    }
    const artifact = /^\/api\/2\.0\/mlflow-artifacts\/artifacts\/([^/]+)\/([^/]+)\/artifacts\/(.+)$/.exec(url.pathname);
    if (req.method === 'PUT' && artifact) {
      const run = runs.get(artifact[2]!);
      if (!run) return send(res, 404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: 'no run' });
      run.artifacts[decodeURIComponent(artifact[3]!)] = raw;
      return send(res, 200, {});
    }
    return send(res, 404, { error_code: 'ENDPOINT_NOT_FOUND', message: route });
  };
  const server = createServer((req, res) => void handle(req, res).catch((error: Error) => send(res, 500, { message: error.message })));
  const listening = await listen(server, '127.0.0.1', 0, 'mlflow fake');
  return { url: listening.url, calls, experiments, runs, close: () => listening.close() };
}
