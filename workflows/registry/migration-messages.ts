import { defineUpdate } from '@temporalio/workflow';
import type { PinnedDefinition } from '../built-in-definitions/definition-types';

/** An operator's migration request (DESIGN 6): a dry run unless `apply`. */
export interface MigrationRequest {
  /** The revision to move to, with its body and digest (the registry's or the built-in one). */
  to: PinnedDefinition;
  /** Explicit node mapping, old node → node of the new revision. */
  mapping: Record<string, string>;
  apply: boolean;
  requested_by: string;
}

/** The last migration decision of a run: the execution view's `migration` (null until an operator asked). */
export interface MigrationDecision {
  eligible: boolean;
  incompatibilities: string[];
  from: { name: string; revision: number; digest: string };
  to: { name: string; revision: number; digest: string };
  mapping: Record<string, string>;
  current_node: string;
  /** Where the ticket stands in the new revision (eligible only). */
  target_node: string | null;
  dry_run: boolean;
  applied: boolean;
  requested_by: string;
  decided_at: string;
}

/** Analyzes (and with `apply`, performs) a move of the run to another revision of its definition. */
export const migrateDefinitionUpdate = defineUpdate<MigrationDecision, [MigrationRequest]>('migrateDefinition');
