import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEATURE_DEFINITION } from '../../../workflows/built-in-definitions';
import { acceptTable } from '../../../workflows/built-in-definitions/definition-types';
import { pinDefinition } from '../../../src/definition-rules/definition-digest';
import { validateDefinition } from '../../../src/definition-rules/validate-definition';
import { analyzeMigration, type MigrationPosition } from '../../../workflows/registry/migration-compatibility';

/**
 * README's migrate example publishes docs/examples/feature-r3.json and moves a sandbox ticket waiting at its PRD gate
 * to it (issue 43, point 7): the file must be a valid definition whose graph is the built-in feature's, so the move
 * is eligible wherever a feature ticket rests.
 */
describe('docs/examples/feature-r3.json', () => {
  const file = JSON.parse(readFileSync(join(__dirname, '../../../docs/examples/feature-r3.json'), 'utf8')) as unknown;

  it('is a valid feature definition, r3, with the built-in r2 graph', () => {
    const valid = validateDefinition(file);
    expect(valid.ok ? [] : valid.problems).toEqual([]);
    if (!valid.ok) return;
    expect(valid.definition).toMatchObject({ name: 'feature', revision: 3, entry: FEATURE_DEFINITION.entry });
    expect(FEATURE_DEFINITION.revision).toBe(2);
    expect(valid.definition.nodes).toEqual(FEATURE_DEFINITION.nodes);
    expect(acceptTable(valid.definition)).toEqual(acceptTable(FEATURE_DEFINITION));
  });

  it('takes a ticket waiting at the PRD gate of r2 without a mapping', () => {
    const atPrdGate: MigrationPosition = { current_node: 'prd_approval_gate', is_paused: true, is_blocked: false, ended: null, return_to: null, resume_at: null };
    const valid = validateDefinition(file);
    if (!valid.ok) throw new Error(valid.problems.join('\n'));
    expect(analyzeMigration(pinDefinition(FEATURE_DEFINITION), pinDefinition(valid.definition), atPrdGate, {})).toMatchObject({ eligible: true, incompatibilities: [], target_node: 'prd_approval_gate' });
  });
});
