/**
 * Contract: the GitLab simulator's webhooks carry what real GitLab deliveries carry. The corpus
 * (test/fixtures/vendor-deliveries/gitlab/, origins in its README.md) holds deliveries that GitLab sent and other
 * projects kept as test data. The simulator is driven through its REST API to emit each event, and every body it
 * sends is compared, path by path (array items collapsed to `[]`), with the corpus bodies of the same event:
 *
 * - missing: a field is required when every real delivery that has its parent object has it too (so the fields of a
 *   diff note's `position` are required when the simulator sends a position, not when it sends null);
 * - extra: a field that no real delivery carries;
 * - type: a JSON type no real delivery has at that path. Where real deliveries differ among themselves (null in one,
 *   a string in another) either is accepted; where they only ever show null the type is unknown and any is accepted,
 *   and where they only ever show an empty array its items' shape is unknown and not checked.
 *
 * Open-ended objects, whose keys depend on the moment rather than on the event's shape, are compared by rule:
 * - `changes` (merge request hook): each key must name a field of `object_attributes`, its value must be exactly
 *   `{ previous, current }`, and each of the two must have the shape real deliveries give that field (the labels of
 *   `changes.labels` are held to the shape of `object_attributes.labels`; null is accepted, as when a field is set
 *   for the first time);
 * - `merge_params`: GitLab stores whatever options the merge request was opened with; only being an object is checked.
 *
 * Conditional fields, which GitLab adds only in a situation the simulator does not model, are listed in CONDITIONAL
 * with the reason; they are neither required nor refused.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitlabHookSchema } from '../../../src/ingress/gitlab/gitlab-webhook-schema';
import { GitLabSimulator, startGitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { FIXTURES, fixture } from '../../helpers/fixtures';
import { startWebhookReceiver } from './webhook-receiver';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Shape = Map<string, Set<string>>;
type HookKind = 'merge_request' | 'note' | 'pipeline';

const CORPUS_DIR = 'vendor-deliveries/gitlab';
const OPEN_ENDED = ['changes', 'object_attributes.merge_params', 'merge_request.merge_params'];
const CONDITIONAL: Record<HookKind, string[]> = {
  merge_request: [],
  // GitLab 16.11 added `object_attributes.action` (create, update) to note hooks (webhook_events.md, "Comment
  // events"); the corpus's notes were sent before that. The service reads it, so the simulator sends it.
  note: ['object_attributes.action'],
  // GitLab's pipeline hook names the upstream pipeline only for a pipeline a job of another pipeline triggered
  // (Gitlab::DataBuilder::Pipeline); the corpus's examples are such pipelines, the simulator's never are.
  pipeline: ['source_pipeline'],
};

function typeOf(value: Json): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Every path (array items collapsed to `[]`) with its JSON types; children of null are not visited. */
function shape(value: Json, prefix = '', into: Shape = new Map()): Shape {
  into.set(prefix, (into.get(prefix) ?? new Set()).add(typeOf(value)));
  if (Array.isArray(value)) for (const item of value) shape(item, `${prefix}[]`, into);
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) shape(item, prefix ? `${prefix}.${key}` : key, into);
  return into;
}

/** `a.b[].c` → `a.b[]`; `a` → ``. */
function parentOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? '' : path.slice(0, dot);
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[]`);

function corpusOf(kind: HookKind): Array<{ file: string; body: Json }> {
  return readdirSync(join(FIXTURES, CORPUS_DIR))
    .filter((file) => file.startsWith(`${kind}-`) && file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, body: fixture<Json>(`${CORPUS_DIR}/${file}`) }));
}

/** The union of the corpus's shapes, and per path whether every delivery having its parent object has it. */
function reference(kind: HookKind) {
  const shapes = corpusOf(kind).map(({ body }) => shape(body));
  const union: Shape = new Map();
  for (const s of shapes) for (const [path, types] of s) union.set(path, new Set([...(union.get(path) ?? []), ...types]));
  const required = (path: string) => shapes.every((s) => !s.get(parentOf(path))?.has('object') || s.has(path));
  return { union, required };
}

/** Ways `actual` (limited to paths `inScope` accepts) differs from the corpus. */
function compare(kind: HookKind, actual: Shape, inScope: (path: string) => boolean): string[] {
  const { union, required } = reference(kind);
  const problems: string[] = [];
  for (const path of union.keys()) {
    if (!inScope(path) || path.endsWith('[]') || !required(path)) continue;
    if (actual.get(parentOf(path))?.has('object') && !actual.has(path)) problems.push(`${path}: every real delivery has it, the simulator's has not`);
  }
  const emptyInCorpus = (path: string) => [...path.matchAll(/\[\]/g)].some((m) => {
    const array = path.slice(0, m.index);
    return union.get(array)?.has('array') && !union.has(`${array}[]`);
  });
  for (const [path, types] of actual) {
    if (!inScope(path) || emptyInCorpus(path)) continue;
    const real = union.get(path);
    if (!real) { problems.push(`${path}: no real delivery has it`); continue; }
    if (real.size === 1 && real.has('null')) continue;
    for (const type of types) if (!real.has(type)) problems.push(`${path}: ${type}, real deliveries have ${[...real].join('|')}`);
  }
  return problems;
}

/** Ways a simulator body differs from the real deliveries of its event (see the rules at the top). */
function differences(kind: HookKind, body: Json): string[] {
  const fixed = (path: string) => path !== '' && !OPEN_ENDED.some((o) => under(path, o) && path !== o) && !CONDITIONAL[kind].some((c) => under(path, c));
  const problems = compare(kind, shape(body), fixed);
  for (const prefix of OPEN_ENDED) {
    const value = prefix.split('.').reduce<Json | undefined>((node, key) => (node && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined), body);
    if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) problems.push(`${prefix}: ${typeOf(value)}, real deliveries have an object`);
  }
  const changes = (body as { changes?: Json }).changes;
  if (changes && typeof changes === 'object' && !Array.isArray(changes)) {
    const { union } = reference(kind);
    for (const [field, change] of Object.entries(changes)) {
      const attribute = `object_attributes.${field}`;
      if (!union.has(attribute)) { problems.push(`changes.${field}: no field object_attributes.${field} in any real delivery`); continue; }
      const keys = change && typeof change === 'object' && !Array.isArray(change) ? Object.keys(change).sort().join(',') : typeOf(change);
      if (keys !== 'current,previous') { problems.push(`changes.${field}: ${keys}, real deliveries have previous,current`); continue; }
      for (const side of ['previous', 'current'] as const) {
        const value = (change as Record<string, Json>)[side] ?? null;
        if (value === null) continue;
        problems.push(...compare(kind, shape(value, attribute), (path) => under(path, attribute)).map((p) => `changes.${field}.${side} (as ${p})`));
      }
    }
  }
  return problems;
}

describe('GitLab simulator webhooks against real GitLab deliveries', () => {
  const NS = 'fin/payments';
  const TOKEN = 'glpat-corpus-token-0123456';
  let sim: GitLabSimulator;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const bodies = new Map<string, Json>();

  beforeAll(async () => {
    hooks = await startWebhookReceiver();
    sim = await startGitLabSimulator({ projects: [NS], tokens: { [TOKEN]: 'service-bot' }, webhook: { url: hooks.url, secret: 's' } });
    const project = sim.state.project(NS);
    const head = sim.state.push(project, 'service/proj-1');
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${sim.apiUrl}/projects/${encodeURIComponent(NS)}${path}`, {
        method, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(response.status, `${method} ${path}`).toBeLessThan(300);
      return (await response.json()) as Record<string, unknown>;
    };
    const mr = await api('POST', '/merge_requests', { title: '[PROJ-1] Pay', description: 'Body', source_branch: 'service/proj-1', target_branch: 'main', labels: 'service' });
    await api('PUT', `/merge_requests/${String(mr.iid)}`, { add_labels: 'ready', remove_labels: 'service' });
    await api('PUT', `/merge_requests/${String(mr.iid)}`, { title: '[PROJ-1] Pay v2' });
    await api('POST', `/merge_requests/${String(mr.iid)}/notes`, { body: 'Stage done' });
    // A reviewer comments on a line in GitLab's UI.
    sim.state.startDiscussion(project.mergeRequests[0]!, 'Say which rows.', 'octo-reviewer', { position: { path: 'src/pay.ts', line: 4 } });
    // The corpus's pipelines have finished; a running one's hook has null where they have a time.
    sim.state.reportPipeline(project, 'service/proj-1', head, 'failed');
    sim.state.reportPipeline(project, 'service/proj-1', head, 'success', [{ name: 'build', stage: 'build', status: 'success' }, { name: 'test', stage: 'test', status: 'success' }]);
    sim.state.merge(project, project.mergeRequests[0]!, 'octo-reviewer');
    await sim.webhooks.flush();
    for (const hook of hooks.received) {
      const body = hook.json as { object_kind: string; object_attributes: { action?: string; type?: string | null; status?: string } };
      const moment = body.object_kind === 'note' ? (body.object_attributes.type ?? 'plain') : body.object_kind === 'pipeline' ? body.object_attributes.status : body.object_attributes.action;
      const name = `${body.object_kind} ${moment}`;
      bodies.set(bodies.has(name) ? `${name} (${[...bodies.keys()].filter((k) => k.startsWith(name)).length + 1})` : name, hook.json as Json);
    }
  });
  afterAll(async () => {
    await sim?.close();
    await hooks?.close();
  });

  it('emits every event the corpus holds: open, label change, edit, merge, plain and diff note, pipelines', () => {
    expect([...bodies.keys()].sort()).toEqual([
      'merge_request merge', 'merge_request open', 'merge_request update', 'merge_request update (2)',
      'note DiffNote', 'note plain', 'pipeline failed', 'pipeline success',
    ]);
    for (const kind of ['merge_request', 'note', 'pipeline'] as const) expect(corpusOf(kind).length, kind).toBeGreaterThanOrEqual(2);
  });

  it('sends every field real deliveries of the same event always carry, of their types, and none they never carry', () => {
    const problems = [...bodies].flatMap(([name, body]) => differences(name.split(' ')[0] as HookKind, body).map((p) => `${name}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('fills the new fields from its state: labels as label objects, what changed, the project, the head commit and the jobs', () => {
    const opened = bodies.get('merge_request open') as any;
    expect(opened.labels.map((l: any) => l.title)).toEqual(['service']);
    expect(opened.object_attributes.labels).toEqual(opened.labels);
    expect(opened.repository).toMatchObject({ name: 'payments', homepage: opened.project.web_url });
    const relabelled = bodies.get('merge_request update') as any;
    expect(relabelled.changes.labels.previous.map((l: any) => l.title)).toEqual(['service']);
    expect(relabelled.changes.labels.current.map((l: any) => l.title)).toEqual(['ready']);
    expect(relabelled.labels[0].id).not.toBe(opened.labels[0].id);
    const retitled = bodies.get('merge_request update (2)') as any;
    expect(retitled.changes.title).toEqual({ previous: '[PROJ-1] Pay', current: '[PROJ-1] Pay v2' });
    expect(retitled.changes).not.toHaveProperty('labels');
    expect((bodies.get('merge_request merge') as any).changes.state_id).toEqual({ previous: 1, current: 3 });
    const note = bodies.get('note plain') as any;
    expect(note.repository.homepage).toBe(note.project.web_url);
    expect(note.merge_request.labels.map((l: any) => l.title)).toEqual(['ready']);
    const failed = bodies.get('pipeline failed') as any;
    expect(failed.commit.id).toBe(failed.object_attributes.sha);
    expect(failed.builds.map((b: any) => [b.stage, b.status])).toEqual([['test', 'failed']]);
    expect(failed.object_attributes.stages).toEqual(['test']);
    expect((bodies.get('pipeline success') as any).object_attributes.stages).toEqual(['build', 'test']);
    const diffNote = bodies.get('note DiffNote') as any;
    expect(diffNote.object_attributes.position.line_range.start).toMatchObject({ new_line: 4, line_code: diffNote.object_attributes.line_code });
  });

  it('sends bodies the service\'s GitLab webhook schema accepts', () => {
    for (const [name, body] of bodies) expect(gitlabHookSchema.safeParse(body).success, name).toBe(true);
  });

  it('catches a body that strays from the real deliveries, naming the path (the check can fail)', () => {
    const broken = structuredClone(bodies.get('merge_request update')) as any;
    delete broken.repository;
    broken.object_attributes.iid = '1';
    broken.ticket = 'PROJ-1';
    broken.changes.colour = { previous: 'red', current: 'blue' };
    broken.changes.title = { before: 'a', current: 'b' };
    broken.changes.labels.current[0].id = 'one';
    expect(differences('merge_request', broken)).toEqual([
      'repository: every real delivery has it, the simulator\'s has not',
      'object_attributes.iid: string, real deliveries have number',
      'ticket: no real delivery has it',
      'changes.labels.current (as object_attributes.labels[].id: string, real deliveries have number)',
      'changes.colour: no field object_attributes.colour in any real delivery',
      'changes.title: before,current, real deliveries have previous,current',
    ]);
  });
});
