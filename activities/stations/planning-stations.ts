import type { StationActivity } from '../../workflows/runtime/station-types';
import { createAnswerQuestionStation } from './planning/answer-question';
import { createDocumentStations } from './planning/document-stations';
import { createDraftStations, type DraftStationDeps } from './planning/draft-stations';
import { createProvisionStations } from './planning/provision-stations';
import { createBugHostStations } from './bug/bug-host-stations';
import { createBugCodeChangeStations } from './bug/bug-code-change-stations';

export type PlanningStationDeps = DraftStationDeps;

export type PlanningStationName = 'generate_prd' | 'generate_spec' | 'decompose_epics' | 'generate_tasks' | 'answer_question' | 'provision_epics' | 'provision_tasks'
  | 'triage_check' | 'reflect_rca' | 'plan_bug_fix' | 'generate_plan' | 'decompose_plan' | 'post_merge_summary' | 'complete_task_takeover';

/**
 * The host stations that read the tracker and call the model (SPEC 3.1, 3.2; REFERENCE "Feature", "Bug", "Task
 * takeover"), registered by the worker under their names: feature planning, bug triage, reflection and fix plan, the
 * takeover's triage and plan, and the tracker work around them (fix Tasks, the summaries after the merge). Every
 * write is returned as an effect intent for the workflow's journal.
 */
export function createPlanningStations(deps: PlanningStationDeps): Record<PlanningStationName, StationActivity> {
  return {
    ...createDocumentStations(deps),
    ...createDraftStations(deps),
    answer_question: createAnswerQuestionStation(deps),
    ...createProvisionStations(deps),
    ...createBugHostStations(deps),
    ...createBugCodeChangeStations(deps),
  };
}
