import { describe, expect, it } from 'vitest';
import { cachedIssueKeys, issueIdOfComment } from '../../../../src/ingress/tracker/comment-issue';

describe('the issue of a comment event without an issue object', () => {
  it.each([
    ['https://jira.example.com/rest/api/2/issue/10042/comment/10300', '10042'],
    ['https://example.atlassian.net/rest/api/3/issue/10042/comment/10100', '10042'],
    ['https://jira.example.com/jira/rest/api/latest/issue/PROJ-42/comment/7/', 'PROJ-42'],
    ['https://jira.example.com/rest/api/2/attachment/10600', undefined],
    [undefined, undefined],
  ])('%s names issue %s', (self, id) => {
    expect(issueIdOfComment(self)).toBe(id);
  });

  it('asks the tracker once per issue id and forgets the oldest first', async () => {
    const asked: string[] = [];
    const keys = cachedIssueKeys(async (id) => { asked.push(id); return `PROJ-${id}`; }, 2);
    expect(await keys.keyOf('1')).toBe('PROJ-1');
    expect(await keys.keyOf('1')).toBe('PROJ-1');
    await keys.keyOf('2');
    await keys.keyOf('3');
    await keys.keyOf('1');
    expect(asked).toEqual(['1', '2', '3', '1']);
  });

  it('does not remember a failed lookup', async () => {
    let fail = true;
    const keys = cachedIssueKeys(async (id) => { if (fail) throw new Error('tracker down'); return `PROJ-${id}`; });
    await expect(keys.keyOf('9')).rejects.toThrow('tracker down');
    fail = false;
    expect(await keys.keyOf('9')).toBe('PROJ-9');
  });
});
