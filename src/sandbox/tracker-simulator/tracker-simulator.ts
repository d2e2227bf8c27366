/**
 * A Jira Cloud look-alike for tests and `service dev --sandbox`: the REST v3 endpoints the tracker client uses,
 * kept in memory, with Jira's status codes and error bodies, basic-credential checks, signed webhooks on every
 * change, and faults on demand.
 */
import express, { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { AdfDocument } from '../../providers/tracker/adf/adf-types';
import { FaultInjector, createFaultInjector } from '../fault-injector';
import { serveSimulator } from '../listen';
import { WebhookSender, WebhookTarget, createWebhookSender, hmacSha256Hex } from '../webhook-sender';
import { JqlError, compareForOrder, matchesJql, parseJql } from './jql';
import { TrackerSimError, TrackerState, statusByName } from './tracker-state';
import { issuePageHandler } from './issue-page';
import { adfToMarkdown } from '../../providers/tracker/adf/adf-to-markdown';
import { jiraWebhookPayload, withoutEmails } from './tracker-webhook-payloads';

export interface TrackerSimulatorOptions {
  port?: number;
  host?: string;
  /** Where to send webhooks (the gateway's /api/v1/webhooks/tracker) and the secret to sign them with. */
  webhook?: WebhookTarget;
  /** When set, requests must carry these basic credentials (401 otherwise). When unset, any basic credentials work. */
  credentials?: { email: string; apiToken: string };
  /** Projects created at start. */
  projects?: string[];
  /**
   * Jira Cloud with the users' e-mails kept private by their profiles: webhooks and the REST API name people (and the
   * service account) by account id only; `/myself` still shows the caller its own e-mail.
   */
  privateEmails?: boolean;
}

export interface TrackerSimulator {
  url: string;
  state: TrackerState;
  faults: FaultInjector;
  webhooks: WebhookSender;
  close(): Promise<void>;
}

function jiraError(status: number, message: string): unknown {
  return { errorMessages: [message], errors: {} };
}

export async function startTrackerSimulator(options: TrackerSimulatorOptions = {}): Promise<TrackerSimulator> {
  let url = '';
  const state = new TrackerState(() => url);
  for (const key of options.projects ?? []) state.createProject(key);
  const faults = createFaultInjector(jiraError);
  const webhooks = createWebhookSender(options.webhook);

  state.onEvent((event) => {
    const payload = jiraWebhookPayload(state, event, { privateEmails: options.privateEmails ?? false });
    webhooks.send(payload.webhookEvent, payload, (body, deliveryId) => {
      const secret = webhooks.target?.secret;
      return {
        'x-atlassian-webhook-identifier': deliveryId,
        'x-atlassian-webhook-retry': '0',
        ...(secret ? { 'x-hub-signature': `sha256=${hmacSha256Hex(secret, body)}` } : {}),
      };
    });
  });

  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => { res.setHeader('x-arequestid', randomUUID()); next(); });
  app.use(express.json({ strict: false, limit: '1mb' }));
  // The issue's web page, where links to a ticket lead (readable from loopback without credentials, as a browser asks).
  app.get('/browse/:key', issuePageHandler(state, (email, token) => validCredentials(options.credentials, email, token)));
  app.use(authenticate(state, options.credentials));
  app.use(faults.middleware);
  const api = express.Router();
  app.use('/rest/api/3', api);
  if (options.privateEmails) {
    // Only the caller's own e-mail stays visible (`/myself`), as on a Jira Cloud whose users keep theirs private.
    api.use((req, res, next) => {
      if (req.path === '/myself') return next();
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(withoutEmails(body));
      next();
    });
  }

  api.get('/myself', (_req, res) => {
    const user = res.locals.user;
    res.json({ ...user, self: `${url}/rest/api/3/user?accountId=${user.accountId}`, timeZone: 'UTC', accountType: 'atlassian' });
  });

  api.get('/user/groups', (req, res) => {
    const accountId = typeof req.query.accountId === 'string' ? req.query.accountId : '';
    if (!accountId) throw new TrackerSimError(400, ['The accountId query parameter is required.']);
    res.json(state.groupsOf(accountId).map((group) => ({ name: group.name, groupId: group.groupId, self: `${url}/rest/api/3/group?groupId=${group.groupId}` })));
  });

  api.get('/issue/:key', (req, res) => {
    const issue = state.issue(param(req, 'key'));
    // Without `fields`, Jira answers every field (*all), the comments included.
    const fields = typeof req.query.fields === 'string' ? req.query.fields.split(',').map((f) => f.trim()) : ['*all'];
    const changelog = String(req.query.expand ?? '').split(',').includes('changelog');
    res.json(state.issueJson(issue, { fields, changelog }));
  });

  api.get('/issue/:key/changelog', (req, res) => {
    const issue = state.issue(param(req, 'key'));
    const { startAt, maxResults } = paging(req, 100);
    const values = issue.histories.slice(startAt, startAt + maxResults);
    res.json({
      self: `${url}${req.originalUrl}`,
      startAt,
      maxResults,
      total: issue.histories.length,
      isLast: startAt + values.length >= issue.histories.length,
      values,
    });
  });

  api.put('/issue/:key', (req, res) => {
    const issue = state.issue(param(req, 'key'));
    const body = (req.body ?? {}) as { update?: { labels?: Array<{ add?: string; remove?: string; set?: string[] }> }; fields?: { labels?: string[]; summary?: string; description?: AdfDocument | null } };
    const unsupported = Object.keys(body.update ?? {}).concat(Object.keys(body.fields ?? {})).filter((f) => !['labels', 'summary', 'description'].includes(f));
    if (unsupported.length) {
      throw new TrackerSimError(400, [], Object.fromEntries(unsupported.map((f) => [f, `Field '${f}' cannot be set. It is not on the appropriate screen, or unknown.`])));
    }
    const operations = [...(body.fields?.labels ? [{ set: body.fields.labels }] : []), ...(body.update?.labels ?? [])];
    if (operations.length) state.updateLabels(issue.key, operations, res.locals.user);
    if (body.fields?.summary !== undefined || body.fields?.description !== undefined) {
      state.editFields(issue.key, { summary: body.fields.summary, description: body.fields.description }, res.locals.user);
    }
    res.status(204).end();
  });

  api.get('/issue/:key/comment', (req, res) => {
    const issue = state.issue(param(req, 'key'));
    const { startAt, maxResults } = paging(req, 100);
    const withProperties = String(req.query.expand ?? '').split(',').includes('properties');
    const ordered = req.query.orderBy === '-created' ? [...issue.comments].reverse() : issue.comments;
    const page = ordered.slice(startAt, startAt + maxResults);
    res.json({ startAt, maxResults, total: issue.comments.length, comments: page.map((c) => state.commentJson(issue, c, withProperties)) });
  });

  api.get('/issue/:key/comment/:id', (req, res) => {
    const issue = state.issue(param(req, 'key'));
    const comment = issue.comments.find((c) => c.id === param(req, 'id'));
    if (!comment) return void res.status(404).json(jiraError(404, `Can not find a comment for the id: ${param(req, 'id')}.`));
    const withProperties = String(req.query.expand ?? '').split(',').includes('properties');
    res.json(state.commentJson(issue, comment, withProperties));
  });

  api.post('/issue/:key/comment', (req, res) => {
    const issue = state.issue(param(req, 'key'));
    const body = (req.body ?? {}) as { body?: AdfDocument; properties?: Array<{ key: string; value: unknown }> };
    if (!body.body) throw new TrackerSimError(400, [], { comment: 'Comment body can not be empty!' });
    const comment = state.addComment(issue.key, body.body, res.locals.user, body.properties ?? []);
    const withProperties = String(req.query.expand ?? '').split(',').includes('properties');
    res.status(201).json(state.commentJson(issue, comment, withProperties));
  });

  api.get('/issue/:key/transitions', (req, res) => {
    const transitions = state.transitionsFor(param(req, 'key')).map((t) => {
      const to = statusByName(t.to);
      return {
        id: t.id,
        name: t.name,
        hasScreen: false,
        isGlobal: true,
        to: { id: to.id, name: to.name, statusCategory: { key: to.category } },
      };
    });
    res.json({ expand: 'transitions', transitions });
  });

  api.post('/issue/:key/transitions', (req, res) => {
    const id = (req.body as { transition?: { id?: string } } | undefined)?.transition?.id;
    if (!id) throw new TrackerSimError(400, ['Missing transition id.']);
    state.transition(param(req, 'key'), String(id), res.locals.user);
    res.status(204).end();
  });

  api.post('/issue', (req, res) => {
    const fields = ((req.body ?? {}) as { fields?: Record<string, unknown> }).fields ?? {};
    const project = fields.project as { key?: string; id?: string } | undefined;
    const projectKey = project?.key ?? [...state.projects.values()].find((p) => p.id === project?.id)?.key ?? '';
    const issue = state.createIssue({
      projectKey,
      issueType: String((fields.issuetype as { name?: string } | undefined)?.name ?? ''),
      summary: String(fields.summary ?? ''),
      description: (fields.description as AdfDocument | undefined) ?? null,
      labels: fields.labels as string[] | undefined,
      parentKey: (fields.parent as { key?: string } | undefined)?.key,
    }, res.locals.user);
    res.status(201).json({ id: issue.id, key: issue.key, self: state.issueSelf(issue) });
  });

  api.post('/issueLink', (req, res) => {
    const body = (req.body ?? {}) as { type?: { name?: string }; inwardIssue?: { key?: string }; outwardIssue?: { key?: string } };
    state.linkIssues(body.type?.name ?? '', body.outwardIssue?.key ?? '', body.inwardIssue?.key ?? '');
    res.status(201).end();
  });

  const propertyRoutes = (prefix: string, properties: (req: Request) => Map<string, unknown>) => {
    api.get(`${prefix}/properties/:prop`, (req, res) => {
      const map = properties(req);
      const key = param(req, 'prop');
      if (!map.has(key)) throw new TrackerSimError(404, [`The property with key '${key}' does not exist.`]);
      res.json({ key, value: map.get(key) });
    });
    api.put(`${prefix}/properties/:prop`, (req, res) => {
      const outcome = state.setProperty(properties(req), param(req, 'prop'), req.body);
      res.status(outcome === 'created' ? 201 : 200).end();
    });
    api.delete(`${prefix}/properties/:prop`, (req, res) => {
      const map = properties(req);
      const key = param(req, 'prop');
      if (!map.delete(key)) throw new TrackerSimError(404, [`The property with key '${key}' does not exist.`]);
      res.status(204).end();
    });
  };
  propertyRoutes('/issue/:key', (req) => state.issue(param(req, 'key')).properties);
  propertyRoutes('/project/:key', (req) => state.project(param(req, 'key')).properties);

  api.post('/search/jql', (req, res) => {
    const body = (req.body ?? {}) as { jql?: string; fields?: string[]; maxResults?: number; nextPageToken?: string; expand?: string };
    let parsed;
    try {
      parsed = parseJql(body.jql ?? '');
    } catch (error) {
      if (error instanceof JqlError) throw new TrackerSimError(400, [error.message]);
      throw error;
    }
    const now = new Date();
    const matching = [...state.issues.values()]
      .map((issue) => ({ issue, view: {
        key: issue.key, id: issue.id, project: issue.projectKey, labels: issue.labels, status: issue.status,
        statusCategory: statusByName(issue.status).category, issuetype: issue.issueType, parent: issue.parentKey,
        summary: issue.summary, text: issue.description ? adfToMarkdown(issue.description) : '',
        created: new Date(issue.created.replace('+0000', 'Z')), updated: new Date(issue.updated.replace('+0000', 'Z')),
      } }))
      .filter(({ view }) => matchesJql(parsed, view, now))
      .sort((a, b) => compareForOrder(parsed, a.view, b.view));
    const maxResults = Math.min(Math.max(Number(body.maxResults ?? 50) || 50, 1), 100);
    const offset = body.nextPageToken ? decodePageToken(body.nextPageToken) : 0;
    const page = matching.slice(offset, offset + maxResults);
    const isLast = offset + page.length >= matching.length;
    const fields = body.fields ?? ['id'];
    res.json({
      issues: page.map(({ issue }) => state.issueJson(issue, { fields, changelog: String(body.expand ?? '').includes('changelog') })),
      ...(isLast ? {} : { nextPageToken: Buffer.from(`offset:${offset + page.length}`).toString('base64url') }),
      isLast,
    });
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ errorMessages: ['The requested resource could not be found.'], errors: {} });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof TrackerSimError) {
      res.status(error.status).json({ errorMessages: error.errorMessages, errors: error.errors });
      return;
    }
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      res.status(status).json({ errorMessages: ['Unexpected character in the request body.'], errors: {} });
      return;
    }
    res.status(500).json({ errorMessages: [`Internal server error: ${error instanceof Error ? error.message : String(error)}`], errors: {} });
  });

  const served = await serveSimulator(app, options, { faults, webhooks });
  url = served.url;
  return { url, state, faults, webhooks, close: served.close };
}

/** Any e-mail and token, or exactly the simulator's when it has some. */
function validCredentials(credentials: TrackerSimulatorOptions['credentials'], email: string, token: string): boolean {
  return email !== '' && token !== '' && (!credentials || (credentials.email === email && credentials.apiToken === token));
}

function authenticate(state: TrackerState, credentials: TrackerSimulatorOptions['credentials']) {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+(.+)$/i.exec(header);
    const decoded = match ? Buffer.from(match[1] ?? '', 'base64').toString('utf8') : '';
    const separator = decoded.indexOf(':');
    const email = separator > 0 ? decoded.slice(0, separator) : '';
    const token = separator > 0 ? decoded.slice(separator + 1) : '';
    if (!validCredentials(credentials, email, token)) {
      res.status(401).json({ errorMessages: ['You are not authenticated. Authentication required to perform this operation.'], errors: {} });
      return;
    }
    res.locals.user = state.userForEmail(email);
    next();
  };
}

function param(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : String(value ?? '');
}

function paging(req: Request, max: number): { startAt: number; maxResults: number } {
  const startAt = Math.max(0, Number(req.query.startAt ?? 0) || 0);
  const maxResults = Math.min(max, Math.max(1, Number(req.query.maxResults ?? 50) || 50));
  return { startAt, maxResults };
}

function decodePageToken(token: string): number {
  const match = /^offset:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!match) throw new TrackerSimError(400, ['The provided next page token is invalid or expired.']);
  return Number(match[1]);
}
