/**
 * Contract: the GitLab simulator answers with the shapes of GitLab's API documentation. GitLab publishes no
 * machine-readable description of its REST API in a package registry, so the example responses of its docs
 * (test/fixtures/gitlab/api/) stand in: driven through the service's GitLab client, every response the simulator
 * gives must carry every field of the documented example with the same JSON type (null on either side is fine:
 * the example's values are one state among many), and nothing the documentation does not show.
 *
 * Not checked: GET /projects/:id, POST /projects/:id/fork and GET /projects/:id/forks (the documented project has
 * some 150 fields; the simulator sends the few the client reads), GET /user (the same: the client reads `username`)
 * error bodies (the docs give no examples for them), and GET …/approvals (none kept here; the client reads
 * `approved_by[].user`'s username and id, which test/process/poller/gitlab-poll.test.ts reads through it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import { GitLabSimulator, startGitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { fixture } from '../../helpers/fixtures';
import { Exchange, recordingFetch } from '../../helpers/recording-fetch';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NS = 'fin/payments';
const TOKEN = 'glpat-contract-token-123456';

function typeOf(value: Json): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Every path (array items collapsed to `[]`) with its JSON type; children of null are not visited. */
function shape(value: Json, prefix = '', into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  into.set(prefix, (into.get(prefix) ?? new Set()).add(typeOf(value)));
  if (Array.isArray(value)) for (const item of value) shape(item, `${prefix}[]`, into);
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) shape(item, prefix ? `${prefix}.${key}` : key, into);
  return into;
}

interface DocumentedShape {
  fixture: string;
  /** Fields of the example that GitLab does not always send (tier, edition), so their absence is fine. */
  optional?: string[];
  /** Other examples of the same entity whose fields are also documented for this one. */
  alsoDocumentedBy?: string[];
}

/** Ways `body` differs from the documented example: a documented field missing or of another type, or an extra. */
function differences(documented: DocumentedShape, body: Json): string[] {
  const reference = shape(fixture<Json>(`gitlab/api/${documented.fixture}`));
  const also = new Map([...(documented.alsoDocumentedBy ?? [])].flatMap((file) => [...shape(fixture<Json>(`gitlab/api/${file}`))]));
  const actual = shape(body);
  const nullAbove = (path: string) => [...actual].some(([other, types]) => types.has('null') && path.startsWith(`${other}.`));
  const problems: string[] = [];
  for (const [path, types] of reference) {
    if (path === '' || documented.optional?.includes(path) || nullAbove(path)) continue;
    const got = actual.get(path);
    if (!got) {
      // An empty array in the simulator has no item paths; only whole fields must be there.
      if (!path.includes('[]')) problems.push(`${path}: documented, not sent`);
      continue;
    }
    for (const type of got) if (type !== 'null' && !types.has('null') && !types.has(type)) problems.push(`${path}: ${type}, documented as ${[...types].join('|')}`);
  }
  for (const path of actual.keys()) {
    if (path !== '' && !reference.has(path) && !also.has(path) && !documented.optional?.includes(path)) problems.push(`${path}: not in the documentation`);
  }
  return problems;
}

const MERGE_REQUEST_LIST_ITEM: DocumentedShape = {
  fixture: 'merge-request-list-item.json',
  // Premium and Ultimate only (and deprecated since 16.0).
  optional: ['approvals_before_merge'],
};
const NOTE: DocumentedShape = {
  fixture: 'note.json',
  // The note example's author is an older user shape (email, created_at); authors are UserBasic, as in the MR examples.
  optional: ['author.email', 'author.created_at'],
  // The notes list shows thread notes too, with what a thread note has.
  alsoDocumentedBy: ['merge-request-list-item.json', 'discussion-note.json'],
};
/** The fields of `fixture` at or under `prefixes`. */
function under(fixtureName: string, prefixes: string[]): string[] {
  return [...shape(fixture<Json>(`gitlab/api/${fixtureName}`)).keys()].filter((path) => prefixes.some((p) => path === p || path.startsWith(`${p}.`)));
}
// A plain comment and a thread that is not on the diff have no place; only resolvable notes show their resolution.
const DISCUSSION: DocumentedShape = {
  fixture: 'discussion.json',
  optional: under('discussion.json', ['notes[].commit_id', 'notes[].position', 'notes[].resolved', 'notes[].resolved_by', 'notes[].resolved_at']),
};
const DISCUSSION_NOTE: DocumentedShape = { fixture: 'discussion-note.json', optional: under('discussion-note.json', ['commit_id', 'position', 'resolved', 'resolved_by', 'resolved_at']) };
/** Where the documentation shows each answer the client reads (method, path pattern, documented shape of the body or its items). */
const DOCUMENTED: Array<{ route: string; method: string; pattern: RegExp; list: boolean; shape: DocumentedShape }> = [
  { route: 'GET branch', method: 'GET', pattern: /\/repository\/branches\/[^/]+$/, list: false, shape: { fixture: 'branch.json' } },
  { route: 'POST branch', method: 'POST', pattern: /\/repository\/branches$/, list: false, shape: { fixture: 'branch.json' } },
  {
    route: 'merge request', method: '*', pattern: /\/merge_requests(\/\d+)?$/, list: false,
    // The single merge request extends the list entity: what the list example shows is documented for it too.
    shape: { fixture: 'merge-request.json', optional: ['approvals_before_merge'], alsoDocumentedBy: ['merge-request-list-item.json'] },
  },
  { route: 'GET merge requests', method: 'GET', pattern: /\/merge_requests$/, list: true, shape: MERGE_REQUEST_LIST_ITEM },
  { route: 'POST note', method: 'POST', pattern: /\/merge_requests\/\d+\/notes$/, list: false, shape: NOTE },
  { route: 'GET notes', method: 'GET', pattern: /\/merge_requests\/\d+\/notes$/, list: true, shape: NOTE },
  { route: 'pipelines', method: 'GET', pattern: /\/pipelines$/, list: true, shape: { fixture: 'pipeline-list-item.json' } },
  { route: 'GET discussions', method: 'GET', pattern: /\/merge_requests\/\d+\/discussions$/, list: true, shape: DISCUSSION },
  { route: 'POST discussion', method: 'POST', pattern: /\/merge_requests\/\d+\/discussions$/, list: false, shape: DISCUSSION },
  { route: 'discussion (get, resolve)', method: '*', pattern: /\/discussions\/[0-9a-f]{40}$/, list: false, shape: DISCUSSION },
  { route: 'POST discussion note', method: 'POST', pattern: /\/discussions\/[0-9a-f]{40}\/notes$/, list: false, shape: DISCUSSION_NOTE },
];

describe('GitLab simulator against the example responses of GitLab\'s API documentation', () => {
  const exchanges: Exchange[] = [];
  let sim: GitLabSimulator;

  beforeAll(async () => {
    sim = await startGitLabSimulator({ projects: [NS], tokens: { [TOKEN]: 'service-bot' } });
    const client = createGitLabClient({ apiBaseUrl: sim.apiUrl, token: TOKEN, retry: { maxAttempts: 1 }, fetch: recordingFetch(exchanges) });
    const project = sim.state.project(NS);
    await client.getProject(NS);
    await client.getBranch(NS, 'main');
    await client.createBranch(NS, 'service/proj-1', 'main');
    sim.state.push(project, 'service/proj-1');
    const mr = await client.createMergeRequest(NS, { title: '[PROJ-1] Pay', description: 'Body', sourceBranch: 'service/proj-1', targetBranch: 'main' });
    await client.findMergeRequestBySourceBranch(NS, 'service/proj-1');
    await client.listOpenMergeRequestsByBranchPrefix(NS, 'service/');
    await client.listMergeRequestsUpdatedSince(NS, 'service/', new Date(Date.now() - 60_000));
    await client.createMergeRequestNote(NS, mr.iid, 'Stage done', { idempotencyKey: 'proj-1:stage' });
    await client.findNoteByIdempotencyKey(NS, mr.iid, 'proj-1:stage');
    const head = (await client.getMergeRequest(NS, mr.iid)).sha;
    sim.state.reportPipeline(project, 'service/proj-1', head ?? '', 'failed');
    await client.getMergeRequest(NS, mr.iid);
    await client.listMergeRequestPipelines(NS, mr.iid);
    await client.listPipelinesForSha(NS, head ?? '');
    // Threads: one on a line of the diff (the service's review finding, at the merge request's diff_refs), one without
    // a place, and the plain comment above; the service replies and resolves.
    const diffRefs = (await client.getMergeRequest(NS, mr.iid)).diffRefs;
    expect(diffRefs).toEqual({ baseSha: project.branches.get('main'), startSha: project.branches.get('main'), headSha: head });
    const thread = await client.createMergeRequestDiscussion(NS, mr.iid, 'Say which rows.', { position: { diffRefs: diffRefs!, path: 'src/pay.ts', newLine: 4 }, idempotencyKey: 'proj-1:review:finding:0' });
    expect(thread.notes[0]).toMatchObject({ type: 'DiffNote', position: { path: 'src/pay.ts', line: 4 }, idempotencyKey: 'proj-1:review:finding:0' });
    sim.state.startDiscussion(project.mergeRequests[0]!, 'Why?', 'reviewer');
    await client.createMergeRequestDiscussionNote(NS, mr.iid, thread.id, 'Done.', { idempotencyKey: 'proj-1:reply' });
    await client.getMergeRequestDiscussion(NS, mr.iid, thread.id);
    await client.resolveMergeRequestDiscussion(NS, mr.iid, thread.id);
    await client.listMergeRequestDiscussions(NS, mr.iid);
    await client.listMergeRequestNotes(NS, mr.iid);
    await client.updateMergeRequest(NS, mr.iid, { title: '[PROJ-1] Pay v2', stateEvent: 'close' });
  });
  afterAll(async () => {
    await sim?.close();
  });

  const documentedFor = (exchange: Exchange) =>
    DOCUMENTED.filter((d) => (d.method === '*' || d.method === exchange.method) && d.pattern.test(exchange.path))
      .sort((a, b) => Number(b.method !== '*') - Number(a.method !== '*'))[0];

  const problemsOf = (exchange: Exchange): string[] => {
    const documented = documentedFor(exchange);
    if (!documented || exchange.status >= 300) return [];
    const items = documented.list ? (exchange.body as Json[]) : [exchange.body as Json];
    return items.flatMap((item, index) => differences(documented.shape, item).map((p) => `${exchange.method} ${exchange.path}${documented.list ? ` [${index}]` : ''}: ${p}`));
  };

  it('exercises every documented answer, with items in every list', () => {
    for (const documented of DOCUMENTED) {
      const answered = exchanges.filter((e) => documentedFor(e) === documented && e.status < 300);
      expect(answered.length, documented.route).toBeGreaterThan(0);
      if (documented.list) expect(answered.some((e) => (e.body as unknown[]).length > 0), documented.route).toBe(true);
    }
    const single = exchanges.filter((e) => e.method === 'GET' && /\/merge_requests\/\d+$/.test(e.path));
    expect(single.some((e) => (e.body as { head_pipeline: unknown }).head_pipeline !== null), 'a merge request with a head pipeline').toBe(true);
  });

  it('answers with every field the documentation shows, of the same type, and no others', () => {
    expect(exchanges.flatMap(problemsOf)).toEqual([]);
  });

  it('names every request path of the client that this test checks or leaves out on purpose', () => {
    const source = readFileSync(join(__dirname, '../../../src/providers/gitlab/gitlab-client.ts'), 'utf8');
    const operations = [...source.matchAll(/operation: '(\w+)'|paginate<\w+>\('(\w+)'/g)].map((m) => m[1] ?? m[2]).sort();
    expect(operations).toEqual([
      'createBranch', 'createFork', 'createMergeRequest', 'createMergeRequestDiscussion', 'createMergeRequestDiscussionNote', 'createMergeRequestNote', 'findMergeRequestBySourceBranch', 'findOwnFork', 'getBranch',
      'getCurrentUser', 'getMergeRequest', 'getMergeRequestDiscussion', 'getProject', 'listMergeRequestApprovers', 'listMergeRequestDiscussions', 'listMergeRequestNotes', 'listMergeRequestPipelines',
      'listMergeRequestsUpdatedSince', 'listOpenMergeRequestsByBranchPrefix', 'listPipelinesForSha', 'resolveMergeRequestDiscussion', 'updateMergeRequest',
    ]);
  });

  it('catches a body that strays from the documentation (the check can fail)', () => {
    const single = exchanges.find((e) => e.method === 'GET' && /\/merge_requests\/\d+$/.test(e.path))!;
    const broken = structuredClone(single.body) as Record<string, Json>;
    delete broken.detailed_merge_status;
    broken.iid = '1';
    broken.ticket = 'PROJ-1';
    expect(problemsOf({ ...single, body: broken }).map((p) => p.replace(/^.*?: /, ''))).toEqual([
      'iid: string, documented as number',
      'detailed_merge_status: documented, not sent',
      'ticket: not in the documentation',
    ]);
  });
});
