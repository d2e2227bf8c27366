import type { WorkflowKind } from '../ledger/observation';
import { BUG_DEFINITION } from './bug';
import type { WorkflowDefinition } from './definition-types';
import { FEATURE_DEFINITION } from './feature';
import { TASK_TAKEOVER_DEFINITION } from './task-takeover';

export { BUG_DEFINITION, FEATURE_DEFINITION, TASK_TAKEOVER_DEFINITION };

/** The built-in definitions, by the workflow kind they serve. */
export const BUILT_IN_DEFINITIONS: Readonly<Record<WorkflowKind, WorkflowDefinition>> = {
  feature: FEATURE_DEFINITION,
  bug: BUG_DEFINITION,
  task_takeover: TASK_TAKEOVER_DEFINITION,
};
