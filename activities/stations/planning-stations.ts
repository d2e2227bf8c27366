import type { StationActivity } from '../../workflows/runtime/station-types';
import { createAnswerQuestionStation } from './planning/answer-question';
import { createDocumentStations } from './planning/document-stations';
import { createDraftStations, type DraftStationDeps } from './planning/draft-stations';
import { createProvisionStations } from './planning/provision-stations';

export type PlanningStationDeps = DraftStationDeps;

export type PlanningStationName = 'generate_prd' | 'generate_spec' | 'decompose_epics' | 'generate_tasks' | 'answer_question' | 'provision_epics' | 'provision_tasks';

/**
 * The feature graph's planning stations that read the tracker and call the model (SPEC 3.1; REFERENCE "Feature"),
 * registered by the worker under their names: the PRD, the spec, the epic plan and the tasks, the answers to
 * questions at any gate, and the epics and tasks they provision. Every write is returned as an effect intent for the
 * workflow's journal. The bug and takeover graphs register theirs in bug-stations.ts and takeover-stations.ts.
 */
export function createPlanningStations(deps: PlanningStationDeps): Record<PlanningStationName, StationActivity> {
  return {
    ...createDocumentStations(deps),
    ...createDraftStations(deps),
    answer_question: createAnswerQuestionStation(deps),
    ...createProvisionStations(deps),
  };
}
