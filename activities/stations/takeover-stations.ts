import type { StationActivity } from '../../workflows/runtime/station-types';
import type { PlanningDeps } from './planning/document-stations';
import { createCompleteTakeoverStation } from './takeover/complete-takeover-station';
import { createGeneratePlanStation } from './takeover/generate-plan-station';

export type TakeoverStationName = 'generate_plan' | 'complete_task_takeover';

/**
 * The host stations of the task-takeover graph (REFERENCE "Task takeover"), registered by the worker under their
 * names: the plan (one structured model call) and the closing of the task. Its triage is the bug graph's
 * triage_check (bug-stations.ts); its changes run in containers (code-change-stations.ts).
 */
export function createTakeoverStations(deps: PlanningDeps): Record<TakeoverStationName, StationActivity> {
  return {
    generate_plan: createGeneratePlanStation(deps),
    complete_task_takeover: createCompleteTakeoverStation(deps),
  };
}
