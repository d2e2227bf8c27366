import type { StationActivity } from '../../../workflows/runtime/station-types';
import type { PlanningDeps } from '../planning/document-stations';
import { createGeneratePlanStation } from '../takeover/generate-plan-station';
import { createPlanBugFixStation } from './plan-bug-fix-station';
import { createReflectRcaStation } from './reflect-rca-station';
import { createTriageStation } from './triage-station';

/**
 * The stations of the bug and task-takeover graphs that run on the host with one structured model call each (the
 * analysis and the implementation run in containers elsewhere). triage_check serves both graphs.
 */
export function createBugHostStations(deps: PlanningDeps): Record<'triage_check' | 'reflect_rca' | 'plan_bug_fix' | 'generate_plan', StationActivity> {
  return {
    triage_check: createTriageStation(deps),
    reflect_rca: createReflectRcaStation(deps),
    plan_bug_fix: createPlanBugFixStation(deps),
    generate_plan: createGeneratePlanStation(deps),
  };
}
