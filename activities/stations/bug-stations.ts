import type { StationActivity } from '../../workflows/runtime/station-types';
import type { CodeChangeTracker } from './code-change/pull-request-stations';
import type { PlanningDeps } from './planning/document-stations';
import { createDecomposePlanStation } from './bug/decompose-plan-station';
import { createPlanBugFixStation } from './bug/plan-bug-fix-station';
import { createPostMergeSummaryStation } from './bug/post-merge-summary-station';
import { createReflectRcaStation } from './bug/reflect-rca-station';
import { createTriageStation } from './bug/triage-station';

export type BugStationDeps = PlanningDeps & { tracker: PlanningDeps['tracker'] & CodeChangeTracker };

export type BugStationName = 'triage_check' | 'reflect_rca' | 'plan_bug_fix' | 'decompose_plan' | 'post_merge_summary';

/**
 * The host stations of the bug graph (SPEC 3.2; REFERENCE "Bug"), registered by the worker under their names: the
 * triage, the reflection on the root cause analysis and the fix plan (one structured model call each), the fix Tasks
 * and the summary after the merge (tracker writes, no model). The analysis and the fix run in containers
 * (code-change-stations.ts). triage_check serves the takeover graph's triage gate too, with the takeover's checklist.
 */
export function createBugStations(deps: BugStationDeps): Record<BugStationName, StationActivity> {
  return {
    triage_check: createTriageStation(deps),
    reflect_rca: createReflectRcaStation(deps),
    plan_bug_fix: createPlanBugFixStation(deps),
    decompose_plan: createDecomposePlanStation(deps),
    post_merge_summary: createPostMergeSummaryStation(deps),
  };
}
