/**
 * The tracker simulator's webhooks, field by field, against REAL Jira Cloud deliveries
 * (test/fixtures/vendor-deliveries/jira; its README says where each one was captured).
 *
 * For every event the simulator sends, its body is compared with all corpus bodies of the same event, recursively:
 * - a field that EVERY real delivery carries at that place must be there;
 * - a field that NO real delivery carries must not be there;
 * - a value's JSON type must be one the real deliveries show there. A field the corpus only ever shows as null says
 *   nothing about its type when set, so any type passes there. A null passes where any corpus delivery, of any event,
 *   has null at the same path: the corpus's comment events all happen to be on assigned issues, but Jira sends
 *   `assignee: null` for an unassigned one (issue_updated-5), and the simulator models no assignees.
 * Arrays: each element is compared with every real element at that place, across deliveries (so a key only some
 * changelog items carry, like tmpToAccountId on an assignee change, is allowed but not required). An array the
 * corpus only ever shows empty says nothing about its elements.
 * Open-ended vendor content:
 * - `customfield_<n>` keys are per-site configuration (another site has other numbers): neither required nor
 *   forbidden, and not compared.
 * - `emailAddress` on a user object (one with an accountId) is allowed: Jira Cloud sends it for users whose profile
 *   shows it (comment_updated-1's assignee has one) and leaves it out otherwise; the simulator's `privateEmails`
 *   option is the second case.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { fixture, FIXTURES } from '../../helpers/fixtures';
import { startWebhookReceiver } from './webhook-receiver';

type Json = unknown;
const CORPUS_DIR = 'vendor-deliveries/jira';

function corpus(event: string): Json[] {
  const files = readdirSync(join(FIXTURES, CORPUS_DIR)).filter((name) => name.startsWith(`${event}-`) && name.endsWith('.json'));
  return files.map((name) => fixture(`${CORPUS_DIR}/${name}`));
}

const typeOf = (value: Json) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const isObject = (value: Json): value is Record<string, Json> => typeOf(value) === 'object';

/** Every path (arrays' elements as `[]`) at which some corpus delivery, of any event, holds null. */
function nullPaths(value: Json, path = '$', into = new Set<string>()): Set<string> {
  if (value === null) into.add(path);
  else if (Array.isArray(value)) for (const element of value) nullPaths(element, `${path}[]`, into);
  else if (isObject(value)) for (const [key, inner] of Object.entries(value)) nullPaths(inner, `${path}.${key}`, into);
  return into;
}
const NULLABLE = new Set(['comment_created', 'comment_updated', 'issue_created', 'issue_updated'].flatMap((event) => corpus(event)).flatMap((delivery) => [...nullPaths(delivery)]));

/** Every difference between a simulated value and the real values seen at the same place, each naming its path. */
function shapeDifferences(real: Json[], simulated: Json, path = '$'): string[] {
  const realTypes = new Set(real.map(typeOf));
  const simulatedType = typeOf(simulated);
  const onlyNull = realTypes.size === 1 && realTypes.has('null');
  if (!realTypes.has(simulatedType) && !onlyNull && !(simulated === null && NULLABLE.has(path))) {
    return [`${path}: type ${simulatedType}, real deliveries have ${[...realTypes].sort().join(' or ')}`];
  }
  if (isObject(simulated)) {
    const objects = real.filter(isObject);
    if (objects.length === 0) return [];
    const looksLikeUser = objects.some((object) => 'accountId' in object);
    const keys = new Set([...objects.flatMap((object) => Object.keys(object)), ...Object.keys(simulated)]);
    const problems: string[] = [];
    for (const key of [...keys].sort()) {
      if (/^customfield_\d+$/.test(key)) continue;
      const at = `${path}.${key}`;
      const carrying = objects.filter((object) => key in object);
      if (!(key in simulated)) {
        if (carrying.length === objects.length) problems.push(`${at}: missing (every real delivery has it)`);
      } else if (carrying.length === 0) {
        if (!(looksLikeUser && key === 'emailAddress')) problems.push(`${at}: added (no real delivery has it)`);
      } else {
        problems.push(...shapeDifferences(carrying.map((object) => object[key]), simulated[key], at));
      }
    }
    return problems;
  }
  if (Array.isArray(simulated)) {
    const elements = real.filter(Array.isArray).flat();
    if (elements.length === 0) return [];
    return [...new Set(simulated.flatMap((element) => shapeDifferences(elements, element, `${path}[]`)))];
  }
  return [];
}

describe('the comparison itself', () => {
  const [created] = corpus('issue_created') as Array<Record<string, any>>;

  it('passes a real delivery compared with the corpus it belongs to', () => {
    expect(shapeDifferences(corpus('issue_created'), created)).toEqual([]);
  });

  it('names a field every real delivery has that is missing, an added one, and a changed type, by path', () => {
    const altered = structuredClone(created!);
    delete altered.issue.fields.issuetype.iconUrl;
    altered.issue.fields.status.madeUp = 1;
    altered.timestamp = String(altered.timestamp);
    altered.issue.fields.customfield_99999 = { anything: true };
    altered.changelog.items[0].surprise = 'x';
    expect(shapeDifferences(corpus('issue_created'), altered)).toEqual([
      '$.changelog.items[].surprise: added (no real delivery has it)',
      '$.issue.fields.issuetype.iconUrl: missing (every real delivery has it)',
      '$.issue.fields.status.madeUp: added (no real delivery has it)',
      '$.timestamp: type string, real deliveries have number',
    ]);
  });
});

describe('tracker simulator webhooks against real Jira Cloud deliveries', () => {
  let simulator: TrackerSimulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    simulator = await startTrackerSimulator({ projects: ['PROJ'], webhook: { url: receiver.url, secret: 'corpus-secret' } });
    const { state } = simulator;
    const issue = state.createIssue({
      projectKey: 'PROJ', issueType: 'Feature', summary: 'Export invoices', labels: ['service:managed'],
      description: 'Export **all** invoices as CSV.\n\n- one\n- two',
    });
    state.createIssue({ projectKey: 'PROJ', issueType: 'Bug', summary: 'Bare bug' });
    state.updateLabels(issue.key, [{ add: 'service:prd-approved' }]);
    state.transition(issue.key, '21');
    state.editFields(issue.key, { summary: 'Export invoices as CSV', description: 'Now with *dates*.' });
    state.addComment(issue.key, '/service approve');
    state.addComment(issue.key, '? which columns\n\n```\nselect 1\n```');
    await simulator.webhooks.flush();
  });
  afterAll(async () => {
    await simulator?.close();
    await receiver?.close();
  });

  const sent = (webhookEvent: string) => receiver.received.map((r) => r.json).filter((json) => json.webhookEvent === webhookEvent);

  it.each([
    ['jira:issue_created', 'issue_created', 2],
    ['jira:issue_updated', 'issue_updated', 3],
    ['comment_created', 'comment_created', 2],
  ])('%s has the shape of every real %s delivery', (webhookEvent, corpusEvent, count) => {
    const real = corpus(corpusEvent);
    expect(real.length, `corpus deliveries of ${corpusEvent}`).toBeGreaterThan(0);
    const bodies = sent(webhookEvent);
    expect(bodies).toHaveLength(count);
    for (const body of bodies) expect(shapeDifferences(real, body), JSON.stringify(body).slice(0, 200)).toEqual([]);
  });

  it('writes comment bodies and descriptions as strings (wiki markup), as Jira\'s webhooks do, not ADF', () => {
    const [created] = sent('jira:issue_created');
    expect(typeof (created?.issue as any).fields.description).toBe('string');
    expect((created?.issue as any).fields.description).toContain('invoices as CSV');
    for (const comment of sent('comment_created')) expect(typeof (comment.comment as any).body).toBe('string');
    expect(sent('comment_created').map((c) => (c.comment as any).body)[0]).toContain('/service approve');
  });
});
