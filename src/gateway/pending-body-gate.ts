import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceMetrics } from '../metrics/service-metrics';
import { admissionRefusal, type PendingBodyBudget, type PendingBodyRefusalReason } from './pending-body-budget';
import { admissionRefusalAnswer, PENDING_BODY_RETRY_AFTER_SECONDS } from './webhook-intake';
import { errorBody } from './http-errors';
import type { RefusalLog } from './refusal-log';

/**
 * The first thing the gateway does with a request to a signed webhook route while the budget of unauthenticated
 * bodies is full: answer 503 at once, before any router runs (issue 41 point 4). A flood refused this way reconnects
 * as fast as it is answered, so what one refusal costs decides how much of the process is left for everything
 * else (the health probe, genuine deliveries once the flood ebbs): here it is a lookup, three counters and a
 * prebuilt answer; its warning goes through the refusal log (one line per interval, with how many were not logged).
 */

/** The signed routes whose bodies the budget covers, by path (GitLab's token is checked from the headers: no budget). */
export const BUDGETED_WEBHOOK_ROUTES: ReadonlyMap<string, 'tracker' | 'scmhost'> = new Map([
  ['/api/v1/webhooks/tracker', 'tracker'],
  ['/api/v1/webhooks/scmhost', 'scmhost'],
]);

interface PreparedAnswer {
  message: string;
  body: Buffer;
  headers: Record<string, string>;
}

export function pendingBodyGate(
  budget: PendingBodyBudget,
  metrics: Pick<ServiceMetrics, 'webhookBodiesRefused' | 'webhookResponses' | 'webhooksFailed'>,
  refusals: RefusalLog,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  // The answers differ only by route and reason: built once, not per refusal.
  const answers = new Map<string, PreparedAnswer>();
  const answerFor = (route: 'tracker' | 'scmhost', reason: PendingBodyRefusalReason, declaredBytes?: number): PreparedAnswer => {
    const key = reason === 'pending_bytes' ? undefined : `${route} ${reason}`;
    const cached = key === undefined ? undefined : answers.get(key);
    if (cached) return cached;
    const refusal = admissionRefusalAnswer(reason, budget, route, declaredBytes);
    const body = Buffer.from(JSON.stringify(errorBody(refusal.code, refusal.message)));
    const prepared = {
      message: refusal.message,
      body,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length), 'Retry-After': String(PENDING_BODY_RETRY_AFTER_SECONDS), Connection: 'close' },
    };
    if (key !== undefined) answers.set(key, prepared);
    return prepared;
  };
  // Plain Node request and response, so that it can run in front of Express as well as inside it; true when answered.
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const route = req.method === 'POST' ? BUDGETED_WEBHOOK_ROUTES.get(query < 0 ? url : url.slice(0, query)) : undefined;
    if (route === undefined) return false;
    const length = req.headers['content-length'];
    const declaredBytes = length === undefined || length === '' || !Number.isFinite(Number(length)) ? undefined : Number(length);
    // Over its route's size limit is the route's own answer (413), whatever the budget holds.
    const reason = admissionRefusal({ bodies: budget.pendingBodies, routeBodies: budget.pendingOn(route), bytes: budget.heldBytes }, budget.limits, declaredBytes);
    if (reason === undefined || reason === 'pending_bytes') return false;
    metrics.webhookBodiesRefused.inc({ source: route, reason });
    metrics.webhooksFailed.inc({ source: route, event: 'unknown' });
    metrics.webhookResponses.inc({ source: route, code: '503' });
    const answer = answerFor(route, reason, declaredBytes);
    res.writeHead(503, answer.headers);
    res.end(answer.body);
    // The fields of the route's own refusal line, and the cap that was full.
    refusals.warn(`${route} too_many_pending_bodies`, `${route} webhook rejected`, { status: 503, code: 'too_many_pending_bodies', event: 'unknown', reason: answer.message, cap: reason });
    return true;
  };
}
