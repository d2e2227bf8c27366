/**
 * Jira Server/Data Center comment events (`comment_created`, `comment_updated`) carry only the comment; the issue is
 * named by the comment's `self` URL (`.../rest/api/2/issue/10010/comment/10000`). The gateway asks the tracker once
 * per issue id for its key and remembers it: an issue's id never changes, and a moved issue's old key still
 * resolves, so a cached key stays usable.
 */

const ISSUE_OF_COMMENT = /\/rest\/api\/(?:\d+|latest)\/issue\/([^/]+)\/comment\/[^/]+\/?$/;

export function issueIdOfComment(self: string | undefined): string | undefined {
  const match = ISSUE_OF_COMMENT.exec(self ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

export interface IssueKeyResolver {
  keyOf(issueIdOrKey: string): Promise<string>;
}

/** Wraps a tracker lookup with a bounded cache (oldest entry forgotten first). */
export function cachedIssueKeys(lookup: (issueIdOrKey: string) => Promise<string>, limit = 5_000): IssueKeyResolver {
  const keys = new Map<string, string>();
  return {
    async keyOf(issueIdOrKey) {
      const known = keys.get(issueIdOrKey);
      if (known !== undefined) return known;
      const key = await lookup(issueIdOrKey);
      keys.set(issueIdOrKey, key);
      if (keys.size > limit) keys.delete(keys.keys().next().value!);
      return key;
    },
  };
}
