import { describe, expect, it } from 'vitest';
import { formatPullRequestRef, parsePullRequestRef, sourceHostOf } from '../../../../workflows/vocabulary/pull-request-ref';

describe('the one form of a pull request reference', () => {
  it('writes GitHub pull requests with # and GitLab merge requests with !', () => {
    expect(formatPullRequestRef('acme/api', 12, 'github')).toBe('acme/api#12');
    expect(formatPullRequestRef('group/sub/project', 7, sourceHostOf('gitlab'))).toBe('group/sub/project!7');
    expect(sourceHostOf('scmhost')).toBe('github');
  });

  it('reads back what it writes, and nothing that is not a reference', () => {
    expect(parsePullRequestRef('acme/api#12')).toEqual({ repository: 'acme/api', number: 12, host: 'github' });
    expect(parsePullRequestRef('group/sub/project!7')).toEqual({ repository: 'group/sub/project', number: 7, host: 'gitlab' });
    for (const text of ['acme/api', 'api#12', 'acme/api#0', 'acme/api#-1', 'acme/api#12x', 'acme/api #12', 'javascript:alert(1)//x#1', '']) {
      expect(parsePullRequestRef(text), text).toBeUndefined();
    }
  });
});
