import type { SourceSystem } from '../ledger/observation';

/**
 * How the service names one pull request (a merge request on GitLab) everywhere: `owner/repo#12` on GitHub,
 * `group/subgroup/project!12` on GitLab. The gateway's pull-request index, the workflow's lists of pull requests,
 * merges and approvals, the search attribute, the stations and the console all read and write this one form, so it
 * is spelled out here only. Changing it changes what running tickets have recorded.
 */

export type SourceHost = 'github' | 'gitlab';

export interface PullRequestRef {
  repository: string;
  number: number;
  host: SourceHost;
}

export function formatPullRequestRef(repository: string, number: number, host: SourceHost): string {
  return `${repository}${host === 'gitlab' ? '!' : '#'}${number}`;
}

/** The host of a delivery's source system (`scmhost` is GitHub). */
export function sourceHostOf(sourceSystem: SourceSystem): SourceHost {
  return sourceSystem === 'gitlab' ? 'gitlab' : 'github';
}

/** A path of one or more segments, then `#` or `!`, then a positive number; anything else is not a reference. */
const PULL_REQUEST_REF = /^([A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)+)([#!])([1-9][0-9]*)$/;

export function parsePullRequestRef(ref: string): PullRequestRef | undefined {
  const match = PULL_REQUEST_REF.exec(ref);
  if (!match) return undefined;
  return { repository: match[1]!, number: Number(match[3]), host: match[2] === '!' ? 'gitlab' : 'github' };
}
