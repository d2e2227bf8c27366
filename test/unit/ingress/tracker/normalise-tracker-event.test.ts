import { describe, expect, it } from 'vitest';
import { labelChangeFrom, normaliseIssuelessComment, normaliseTrackerEvent, trackerEventName } from '../../../../src/ingress/tracker/normalise-tracker-event';
import { issuelessCommentWebhookSchema, trackerEnvelopeSchema, trackerWebhookSchema, type TrackerWebhook } from '../../../../src/ingress/tracker/tracker-webhook-schema';
import { fixture } from '../../../helpers/fixtures';

const receivedAt = new Date('2026-11-23T08:00:00.000Z');

function load(name: string): TrackerWebhook {
  return trackerWebhookSchema.parse(fixture(`tracker/${name}`));
}

function observationOf(payload: TrackerWebhook, source: 'webhook' | 'poller' = 'webhook') {
  const result = normaliseTrackerEvent(payload, { receivedAt, source });
  if (result.kind !== 'observation') throw new Error(`expected an observation, got ${JSON.stringify(result)}`);
  return result.observation;
}

describe('trackerEventName', () => {
  it.each([
    ['jira:issue_created', undefined, 'issue_created'],
    ['tracker:issue_created', undefined, 'issue_created'],
    ['tracker:issue_updated', undefined, 'issue_updated'],
    ['jira:issue_updated', 'issue_generic', 'issue_updated'],
    ['comment_created', undefined, 'issue_commented'],
    ['tracker:issue_commented', undefined, 'issue_commented'],
    ['jira:issue_deleted', undefined, undefined],
  ])('%s (%s) is %s', (webhookEvent, typeName, expected) => {
    expect(trackerEventName({ webhookEvent, issue_event_type_name: typeName, comment: undefined })).toBe(expected);
  });

  it('reads an old-style jira:issue_updated that carries a comment but no event type as a comment', () => {
    const payload = load('jira-server-issue-updated-comment.json');
    expect(trackerEventName(payload)).toBe('issue_commented');
    expect(observationOf(payload)).toMatchObject({
      event: 'issue_commented', delivery_identity: 'tracker:comment:10301@2026-11-23T07:28:00.000Z',
      facts: { comment: { id: '10301', body: '/service approve', author: 'ada@example.com' } },
    });
    // With an event type that is not a comment, the update stays a field update.
    expect(trackerEventName({ ...payload, issue_event_type_name: 'issue_generic' })).toBe('issue_updated');
  });

  it('reads a Jira issue_updated of type issue_commented as a comment', () => {
    expect(trackerEventName({ webhookEvent: 'jira:issue_updated', issue_event_type_name: 'issue_commented', comment: { id: '1', body: 'x' } }))
      .toBe('issue_commented');
  });
});

describe('normaliseTrackerEvent', () => {
  it('hands over both facts of an update that carries a change and a comment, the change first', () => {
    const payload = load('jira-server-issue-updated-transition-comment.json');
    const result = normaliseTrackerEvent(payload, { receivedAt });
    if (result.kind !== 'observation') throw new Error(JSON.stringify(result));
    expect(result.event).toBe('issue_commented');
    expect(result.observations.map((o) => o.delivery_identity)).toEqual(['tracker:changelog:10240', 'tracker:comment:10302@2026-11-23T07:30:00.000Z']);
    expect(result.observations[0]!.facts.label_change).toEqual({ added: ['service:retry'], removed: [] });
    expect(result.observation).toBe(result.observations[1]);

    const typed = normaliseTrackerEvent({ ...payload, issue_event_type_name: 'issue_generic' }, { receivedAt });
    if (typed.kind !== 'observation') throw new Error(JSON.stringify(typed));
    expect(typed.event).toBe('issue_updated');
    expect(typed.observations.map((o) => o.delivery_identity)).toEqual(['tracker:changelog:10240', 'tracker:comment:10302@2026-11-23T07:30:00.000Z']);

    const deleted = normaliseTrackerEvent({ ...payload, issue_event_type_name: 'issue_comment_deleted' }, { receivedAt });
    if (deleted.kind !== 'observation') throw new Error(JSON.stringify(deleted));
    expect(deleted.observations.map((o) => o.delivery_identity)).toEqual(['tracker:changelog:10240']);
  });

  it('names the fields a changelog changed, so the ledger can order each field on its own', () => {
    expect(observationOf(load('jira-cloud-issue-updated-summary.json')).facts).toMatchObject({ changed_fields: ['summary'] });
    expect(observationOf(load('jira-issue-updated-labels.json')).facts).toMatchObject({ changed_fields: ['labels'] });
  });

  it('turns a Server/DC comment event, once its issue key is known, into the comment observation the poller would build', () => {
    const payload = issuelessCommentWebhookSchema.parse(fixture('tracker/jira-server-comment-created.json'));
    const observation = normaliseIssuelessComment(payload, { id: '10042', key: 'PROJ-42' }, { receivedAt });
    expect(observation).toMatchObject({
      event: 'issue_commented', ticket_key: 'PROJ-42', resource: { kind: 'comment', id: '10300' },
      delivery_identity: 'tracker:comment:10300@2026-11-23T07:20:00.000Z',
      facts: { comment: { id: '10300', body: '? Which columns does the export include?', author: 'ada@example.com' } },
    });
    expect(observation.facts.labels).toBeUndefined();
  });

  it.each([
    'jira-cloud-worklog-created.json', 'jira-cloud-attachment-created.json', 'jira-cloud-issuelink-created.json',
    'jira-cloud-project-created.json', 'jira-cloud-user-created.json', 'jira-cloud-sprint-started.json',
  ])('reads the event of an issue-less delivery (%s) before asking for an issue', (name) => {
    const envelope = trackerEnvelopeSchema.parse(fixture(`tracker/${name}`));
    expect(envelope.issue).toBeUndefined();
    expect(trackerEventName(envelope)).toBeUndefined();
  });

  it('turns Jira issue_created into an observation keyed by the issue id', () => {
    const observation = observationOf(load('jira-issue-created.json'));
    expect(observation).toMatchObject({
      delivery_identity: 'tracker:issue:10042:created',
      source_system: 'tracker',
      event: 'issue_created',
      ticket_key: 'PROJ-42',
      resource: { kind: 'issue', id: '10042' },
      observed_at: '2026-11-23T07:00:00.000Z',
      received_at: '2026-11-23T08:00:00.000Z',
      facts: { issue_type: 'Feature', labels: ['service:managed', 'repo:acme/api'], summary: 'Export invoices as CSV' },
    });
    // Who created it (the webhook's user) travels with it: service:yolo at the start counts only from an allowed actor.
    expect(observation.facts.actor_ids).toEqual(['tracker:557058:f58131cb-b67d-43c7-b30d-6b58d40bd077']);
  });

  it('reads label changes from the changelog and keys the update by changelog id', () => {
    const observation = observationOf(load('jira-issue-updated-labels.json'));
    expect(observation.delivery_identity).toBe('tracker:changelog:10237');
    expect(observation.revision).toBe('10237');
    expect(observation.facts.label_change).toEqual({ added: ['service:prd-approved'], removed: ['service:prd-pending'] });
    // Who did it, tagged with the system; the display name ("Ada Lovelace") is not an identity.
    expect(observation.facts.actor_ids).toEqual(['tracker:557058:f58131cb-b67d-43c7-b30d-6b58d40bd077']);
  });

  it('times a label change by the change (the body\'s timestamp), not by the issue\'s later update time', () => {
    const payload = load('jira-issue-updated-labels.json');
    // Jira reads the issue when it sends: a delivery retried ten minutes later carries the issue as it is then.
    payload.issue.fields.updated = '2026-11-23T07:15:00.000+0000';
    expect(observationOf(payload).observed_at).toBe('2026-11-23T07:05:00.000Z');
    // A changelog with a time of its own (the REST shape) is timed by it.
    expect(observationOf({ ...payload, changelog: { ...payload.changelog!, created: '2026-11-23T07:04:30.000+0000' } }).observed_at).toBe('2026-11-23T07:04:30.000Z');
    // The change and the comment of one update: the change timed by the event, the comment by its own update time.
    const both = normaliseTrackerEvent({ ...load('jira-server-issue-updated-transition-comment.json'), timestamp: Date.parse('2026-11-23T07:29:59.000Z') }, { receivedAt });
    if (both.kind !== 'observation') throw new Error(JSON.stringify(both));
    expect(both.observations.map((o) => o.observed_at)).toEqual(['2026-11-23T07:29:59.000Z', '2026-11-23T07:30:00.000Z']);
    // Only a sender with neither falls back to the issue's update time.
    const { timestamp: _dropped, ...untimed } = payload;
    expect(observationOf(untimed).observed_at).toBe('2026-11-23T07:15:00.000Z');
  });

  it('tags a comment author\'s ids by field and leaves the display name out, even as a last resort', () => {
    const cloud = observationOf(load('jira-comment-created.json'));
    expect(cloud.facts.actor_ids).toEqual(['tracker-email:ada@example.com', 'tracker:557058:f58131cb-b67d-43c7-b30d-6b58d40bd077']);
    const payload = load('jira-comment-created.json');
    payload.comment!.author = { displayName: 'service@example.com' };
    const anonymous = observationOf(payload);
    expect(anonymous.facts.actor_ids).toBeUndefined();
    expect(anonymous.facts.comment?.author).toBeUndefined();
  });

  it('reads a Cloud comment body (wiki markup, a string) and keys the comment by id and update time', () => {
    const observation = observationOf(load('jira-comment-created.json'));
    expect(observation.delivery_identity).toBe('tracker:comment:10100@2026-11-23T07:10:00.000Z');
    expect(observation.facts.comment).toMatchObject({ id: '10100', body: '? Which columns does the export include?', author: 'ada@example.com' });
  });

  it('accepts the spec event names with a plain-text comment body', () => {
    const observation = observationOf(load('spec-issue-commented.json'));
    expect(observation.event).toBe('issue_commented');
    expect(observation.facts.comment?.body).toBe('! Please add a date-range filter to the PRD.');
  });

  it('gives a webhook and a poller delivery of the same fact the same identity', () => {
    const payload = load('jira-issue-updated-labels.json');
    expect(observationOf(payload, 'poller').delivery_identity).toBe(observationOf(payload, 'webhook').delivery_identity);
  });

  it('reports an unsupported event instead of guessing', () => {
    const payload = trackerWebhookSchema.parse({ webhookEvent: 'jira:issue_deleted', issue: { key: 'PROJ-1' } });
    expect(normaliseTrackerEvent(payload)).toEqual({ kind: 'unsupported', reason: 'unsupported tracker event "jira:issue_deleted"' });
  });

  it('refuses an update it cannot identify', () => {
    const payload = trackerWebhookSchema.parse({ webhookEvent: 'jira:issue_updated', issue: { key: 'PROJ-1', fields: {} } });
    expect(normaliseTrackerEvent(payload).kind).toBe('invalid');
  });

  it('rejects a body without a usable issue key at validation', () => {
    expect(trackerWebhookSchema.safeParse({ webhookEvent: 'jira:issue_created', issue: { key: 'not a key' } }).success).toBe(false);
    expect(trackerWebhookSchema.safeParse({ webhookEvent: 'jira:issue_created' }).success).toBe(false);
  });
});

describe('labelChangeFrom', () => {
  it('returns nothing when the changelog does not touch labels', () => {
    expect(labelChangeFrom([{ field: 'status', fromString: 'To Do', toString: 'Done' }])).toBeUndefined();
  });
});
