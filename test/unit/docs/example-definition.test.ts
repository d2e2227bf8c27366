import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEATURE_DEFINITION } from '../../../workflows/built-in-definitions';
import { acceptTable, type WorkflowDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { triggerLabelOf } from '../../../workflows/vocabulary/command-words';
import { pinDefinition } from '../../../src/definition-rules/definition-digest';
import { validateDefinition } from '../../../src/definition-rules/validate-definition';
import { analyzeMigration, type MigrationPosition } from '../../../workflows/registry/migration-compatibility';

/**
 * README's migrate example publishes docs/examples/feature-r2.json and moves a sandbox ticket waiting at its PRD gate
 * to it (issue 43, point 7): the file must be a valid definition whose graph is the built-in feature's, so the move
 * is eligible wherever a feature ticket rests.
 */
/** The nodes that list triggers, with their triggers spelled by label. */
function acceptsAsLabels(nodes: WorkflowDefinition['nodes']): WorkflowDefinition['nodes'] {
  return Object.fromEntries(Object.entries(nodes).flatMap(([id, node]) => (node.kind === 'end' || node.accepts === undefined ? [] : [[id, { ...node, accepts: node.accepts.map(triggerLabelOf) }]])));
}

describe('docs/examples/feature-r2.json', () => {
  const file = JSON.parse(readFileSync(join(__dirname, '../../../docs/examples/feature-r2.json'), 'utf8')) as unknown;

  it('is a valid feature definition, r2, with the built-in r1 graph', () => {
    const valid = validateDefinition(file);
    expect(valid.ok ? [] : valid.problems).toEqual([]);
    if (!valid.ok) return;
    expect(valid.definition).toMatchObject({ name: 'feature', revision: 2, entry: FEATURE_DEFINITION.entry });
    expect(FEATURE_DEFINITION.revision).toBe(1);
    // The file names its triggers by their labels, as bodies did before trigger ids (and keeps the legacy spelling
    // tested); the built-in names them by id. Read as the runtime reads them, they are the same graph.
    expect(valid.definition.nodes).toEqual({ ...FEATURE_DEFINITION.nodes, ...acceptsAsLabels(FEATURE_DEFINITION.nodes) });
    expect(acceptTable(valid.definition)).toEqual(acceptTable(FEATURE_DEFINITION));
  });

  it('takes a ticket waiting at the PRD gate of r1 without a mapping', () => {
    const atPrdGate: MigrationPosition = { current_node: 'prd_approval_gate', is_paused: true, is_blocked: false, ended: null, return_to: null, resume_at: null };
    const valid = validateDefinition(file);
    if (!valid.ok) throw new Error(valid.problems.join('\n'));
    expect(analyzeMigration(pinDefinition(FEATURE_DEFINITION), pinDefinition(valid.definition), atPrdGate, {})).toMatchObject({ eligible: true, incompatibilities: [], target_node: 'prd_approval_gate' });
  });
});
