import type { StationActivity } from '../../../workflows/runtime/station-types';
import type { CodeChangeTracker } from '../code-change/pull-request-stations';
import type { RepositoriesReader } from '../planning/repositories';
import { createCompleteTakeoverStation } from '../takeover/complete-takeover-station';
import { createDecomposePlanStation } from './decompose-plan-station';
import { createPostMergeSummaryStation } from './post-merge-summary-station';

export interface BugCodeChangeDeps {
  tracker: CodeChangeTracker;
  repositories: RepositoriesReader;
}

/** The host stations that create, report and close work in the bug and takeover graphs (no model). */
export function createBugCodeChangeStations(deps: BugCodeChangeDeps): Record<'decompose_plan' | 'post_merge_summary' | 'complete_task_takeover', StationActivity> {
  return {
    decompose_plan: createDecomposePlanStation(deps),
    post_merge_summary: createPostMergeSummaryStation(deps),
    complete_task_takeover: createCompleteTakeoverStation(deps),
  };
}
