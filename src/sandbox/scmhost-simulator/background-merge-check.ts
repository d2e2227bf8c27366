/**
 * Mergeability as GitHub and GitLab compute it: not when the base branch or the head moves, but in a background job
 * that the first read after the move starts. That read shows "not known yet" (GitHub's `mergeable: null`, GitLab's
 * `checking`); a later read shows the result, waiting for the job if it still runs, so a client that reads again
 * (as GitHub's documentation tells clients to) always gets it. Shared by both source-host simulators.
 */

/** A result of the check and the moment it is for (`checkPoint`): a result for another moment is stale. */
export interface MergeCheck { at: string; mergeable: boolean }

/** The moment a check is for: the base branch's head and the pull request's head. */
export function checkPoint(baseSha: string, headSha: string): string {
  return `${baseSha}..${headSha}`;
}

/** What a read may show without waiting: the kept result when it is for the current base and head. */
export function knownMergeability(kept: MergeCheck | undefined, at: string | undefined): boolean | undefined {
  return kept && at !== undefined && kept.at === at ? kept.mergeable : undefined;
}

export class BackgroundMergeChecks {
  private readonly jobs = new Map<string, { at: string; result: Promise<MergeCheck | undefined> }>();

  /**
   * A read of pull request `id` standing at `at`: the kept result when it is for `at`; the running job's result when
   * an earlier read started one for `at`; otherwise undefined, after starting the job. `run` answers whether the head
   * merges cleanly (undefined when git cannot tell: nothing is kept and the next read tries again); `keep` stores a
   * result on the pull request, where snapshots and later reads find it.
   */
  async read(id: string, at: string, kept: MergeCheck | undefined, run: () => Promise<boolean | undefined>, keep: (check: MergeCheck) => void): Promise<boolean | undefined> {
    const known = knownMergeability(kept, at);
    if (known !== undefined) return known;
    const job = this.jobs.get(id);
    if (job?.at === at) return (await job.result)?.mergeable;
    const result: Promise<MergeCheck | undefined> = run().then(
      (mergeable) => {
        if (mergeable === undefined) return undefined;
        const check = { at, mergeable };
        keep(check);
        return check;
      },
      () => undefined,
    ).finally(() => {
      if (this.jobs.get(id)?.result === result) this.jobs.delete(id);
    });
    this.jobs.set(id, { at, result });
    return undefined;
  }
}
