import { createServer } from 'node:http';
import { listen } from '../../src/http/listen';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  scope: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  /** Each export request: path, headers that matter, and the spans it held. */
  requests: Array<{ path: string; authorization?: string; contentType?: string }>;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: OtlpValue[] } };

function valueOf(value: OtlpValue | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

/** An OTLP/HTTP trace receiver (JSON encoding, as the OTLP HTTP exporter sends) standing in for Langfuse's endpoint. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'] });
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans?: Array<{ scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: Array<{ key: string; value: OtlpValue }> }> }> }> };
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, scope: scope.scope?.name ?? '',
                attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
              });
            }
          }
        }
        res.statusCode = 200;
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      } catch (error) {
        res.statusCode = 400;
        res.end(String(error));
      }
    });
  });
  const listening = await listen(server, '127.0.0.1', 0, 'otlp receiver');
  return { url: listening.url, requests, spans, close: () => listening.close() };
}
