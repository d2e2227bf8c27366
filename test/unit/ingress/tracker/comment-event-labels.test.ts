import { describe, expect, it } from 'vitest';
import { withCommentIssueLabels } from '../../../../src/ingress/tracker/comment-event-labels';
import { commentObservation } from '../../../../src/ingress/tracker/tracker-observations';

// Jira's comment events carry no labels; the gateway asks for them, but not for the service's own comments, which
// the loop guard drops anyway (each comment the service writes comes back as a webhook).

const issue = { id: '10001', key: 'SBX-2' };
const comment = (id: string, body: string) => commentObservation(issue, { id, body, authorIds: ['tracker:acc-person'], created: '2026-12-06T01:00:00.000+0000', updated: '2026-12-06T01:00:00.000+0000' }, { source: 'webhook', receivedAt: new Date(0) });

describe('withCommentIssueLabels', () => {
  it('asks for the labels of a person\'s comment, and never for the service\'s own', async () => {
    const asked: string[] = [];
    const reader = { labelsOf: async (key: string) => { asked.push(key); return ['service:managed', 'service:parent:SBX-1']; } };
    const [person, own] = await withCommentIssueLabels([comment('1', '? why'), comment('2', '[svc-bot] PRD posted')], reader, { botCommentPrefix: '[svc-bot]' });
    expect(asked).toEqual(['SBX-2']);
    expect(person!.facts.labels).toEqual(['service:managed', 'service:parent:SBX-1']);
    expect(own!.facts.labels).toBeUndefined();
  });

  it('leaves everything as it came without a reader', async () => {
    const observations = [comment('1', '? why')];
    expect(await withCommentIssueLabels(observations, undefined)).toBe(observations);
  });
});
