import type { StationActivity } from '../../workflows/station-types';
import { createAnswerQuestionStation } from './planning/answer-question';
import { createDocumentStations } from './planning/document-stations';
import { createDraftStations, type DraftStationDeps } from './planning/draft-stations';
import { createProvisionStations } from './planning/provision-stations';

export type PlanningStationDeps = DraftStationDeps;

export type PlanningStationName = 'generate_prd' | 'generate_spec' | 'decompose_epics' | 'generate_tasks' | 'answer_question' | 'provision_epics' | 'provision_tasks';

/**
 * The feature planning stations (SPEC 3.1, 3.2; REFERENCE "Feature"), registered by the worker under their names.
 * They read the tracker and call the model; every write is returned as an effect intent for the workflow's journal.
 */
export function createPlanningStations(deps: PlanningStationDeps): Record<PlanningStationName, StationActivity> {
  return {
    ...createDocumentStations(deps),
    ...createDraftStations(deps),
    answer_question: createAnswerQuestionStation(deps),
    ...createProvisionStations(deps),
  };
}
