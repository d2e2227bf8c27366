import { pinDefinition } from '../../src/definition-rules/definition-digest';
import type { ConsoleDefinitionsPort } from '../../src/console/console-definitions';
import { BUG_DEFINITION } from '../../workflows/built-in-definitions';
import type { DefinitionNode, WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';

/**
 * The revision after the built-in bug definition's (r3, so this is r4) with one change of each sort: a node removed
 * (update_documentation) and one added (security_review), a node whose kind changed (teardown_workspace becomes a
 * router), a station whose station and retry bound changed (triage_check), a gate whose label and triggers changed
 * (rca_option_gate: `regenerate` now leads on to planning), a gate whose `retry_to` changed, and a new description.
 */
export function bugNextRevision(): WorkflowDefinition {
  const nodes: Record<string, DefinitionNode> = structuredClone(BUG_DEFINITION.nodes);
  delete nodes.update_documentation;
  nodes.local_review = { ...nodes.local_review!, on: { passed: 'security_review', changes_needed: 'implement_bug_fix' } } as DefinitionNode;
  nodes.security_review = { kind: 'station', station: 'security_review', on: { passed: 'create_pr' } };
  nodes.teardown_workspace = { kind: 'router', router: 'next_repository', on: { done: 'task_router' } };
  nodes.triage_check = { ...nodes.triage_check!, station: 'triage_check_v2', retry_bound: 5 } as DefinitionNode;
  const gate = nodes.rca_option_gate as Extract<DefinitionNode, { kind: 'gate' }>;
  nodes.rca_option_gate = { ...gate, pending_label: 'service:rca-waiting', accepts: gate.accepts.filter((t) => t !== gate.accepts[0]), on: { ...gate.on, regenerate: 'plan_bug_fix' } };
  nodes.review_response_gate = { ...nodes.review_response_gate!, retry_to: 'implement_review' } as DefinitionNode;
  return { ...BUG_DEFINITION, revision: BUG_DEFINITION.revision + 1, description: 'Bug flow with a security review.', nodes };
}

/** The built-in definitions and the next bug revision as if published. */
export function definitionsWithBugNextRevision(): ConsoleDefinitionsPort {
  const next = bugNextRevision();
  const pins = [pinDefinition(BUG_DEFINITION), pinDefinition(next)];
  return {
    list: async () => pins.map((d) => ({ name: d.name, revision: d.revision, digest: d.digest, source: d.revision === next.revision ? 'published' : 'built_in', published_at: null, published_by: null, latest: d.revision === next.revision, description: d.body.description ?? null })),
    get: async (name, revision) => pins.find((d) => d.name === name && d.revision === revision),
  };
}
