import { describe, expect, it } from 'vitest';
import { labelChangeFrom, normaliseTrackerEvent, trackerEventName } from '../../../../src/ingress/tracker/normalise-tracker-event';
import { trackerWebhookSchema, type TrackerWebhook } from '../../../../src/ingress/tracker/tracker-webhook-schema';
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

  it('reads a Jira issue_updated of type issue_commented as a comment', () => {
    expect(trackerEventName({ webhookEvent: 'jira:issue_updated', issue_event_type_name: 'issue_commented', comment: { id: '1', body: 'x' } }))
      .toBe('issue_commented');
  });
});

describe('normaliseTrackerEvent', () => {
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
  });

  it('reads label changes from the changelog and keys the update by changelog id', () => {
    const observation = observationOf(load('jira-issue-updated-labels.json'));
    expect(observation.delivery_identity).toBe('tracker:changelog:10237');
    expect(observation.revision).toBe('10237');
    expect(observation.facts.label_change).toEqual({ added: ['service:prd-approved'], removed: ['service:prd-pending'] });
  });

  it('flattens an ADF comment body and keys the comment by id and update time', () => {
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
