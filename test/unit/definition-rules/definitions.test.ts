import { describe, expect, it } from 'vitest';
import { canonicalJson, definitionDigest, pinDefinition } from '../../../src/definition-rules/definition-digest';
import { selectDefinition, workflowKindFor } from '../../../src/definition-rules/select-definition';
import { validateDefinition } from '../../../src/definition-rules/validate-definition';
import { BUILT_IN_DEFINITIONS, FEATURE_DEFINITION } from '../../../workflows/built-in-definitions';
import type { WorkflowDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { TRIGGER_OUTCOME } from '../../../workflows/built-in-definitions/catalogue';

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const small = (): WorkflowDefinition => ({
  apiVersion: 'service/v1', name: 'small', revision: 1, entry: 'intake',
  nodes: {
    intake: { kind: 'station', station: 'intake', on: { configured: 'generate_prd' } },
    generate_prd: { kind: 'station', station: 'generate_prd', model_key: 'generate_prd', retry_bound: 2, on: { generated: 'gate' } },
    gate: { kind: 'gate', gate: 'artifact_approval', accepts: ['service:prd-approved', 'feedback (!)'], on: { approved: 'done', feedback: 'generate_prd' } },
    escalate_blocked: { kind: 'end', result: 'blocked' },
    done: { kind: 'end', result: 'completed' },
  },
});

describe('built-in definitions', () => {
  it.each(Object.entries(BUILT_IN_DEFINITIONS))('%s validates against the schema and the catalogue', (_kind, definition) => {
    expect(validateDefinition(definition)).toEqual({ ok: true, definition, warnings: [] });
  });

  it('routes issue types: Feature and Story → feature, Bug → bug, Task and Epic → takeover, others nowhere', () => {
    expect(['Feature', 'story', 'Bug', 'Task', 'Epic'].map((type) => { const r = selectDefinition(type); return r.ok ? r.definition.name : null; }))
      .toEqual(['feature', 'feature', 'bug', 'task_takeover', 'task_takeover']);
    const unknown = selectDefinition('Incident');
    expect(unknown).toMatchObject({ ok: false, reason: expect.stringContaining('no workflow definition for issue type "Incident"') });
  });

  it('names the workflow the gateway starts by the same rule the workflow pins by', () => {
    const types = ['Feature', 'story', ' Bug ', 'Task', 'EPIC', 'Incident', '', undefined, null];
    expect(types.map(workflowKindFor)).toEqual(['feature', 'feature', 'bug', 'task_takeover', 'task_takeover', 'task_takeover', 'task_takeover', 'task_takeover', 'task_takeover']);
    // An unrouted type starts a takeover workflow, which blocks with selectDefinition's reason instead of pinning.
    for (const type of types) expect(selectDefinition(type).kind).toBe(workflowKindFor(type));
  });

  it('pins name, revision, the sha256 of the canonical JSON and the body', () => {
    const route = selectDefinition('Feature');
    expect(route.ok && route.definition).toEqual({ name: 'feature', revision: 2, digest: definitionDigest(FEATURE_DEFINITION), body: FEATURE_DEFINITION });
  });
});

describe('the digest', () => {
  it('does not depend on key order, and changes with any edit', () => {
    const reordered = JSON.parse(canonicalJson(small())) as WorkflowDefinition;
    const shuffled = { nodes: reordered.nodes, entry: reordered.entry, revision: 1, name: 'small', apiVersion: 'service/v1' } as WorkflowDefinition;
    expect(definitionDigest(shuffled)).toBe(definitionDigest(small()));
    expect(definitionDigest(small())).toMatch(/^[0-9a-f]{64}$/);
    const edited = small();
    (edited.nodes.gate as { on: Record<string, string> }).on.approved = 'escalate_blocked';
    expect(definitionDigest(edited)).not.toBe(definitionDigest(small()));
    expect(pinDefinition(small())).toMatchObject({ name: 'small', revision: 1, digest: definitionDigest(small()) });
  });
});

/** The trigger ids the validator offers for an unknown entry: every trigger a node may accept, in vocabulary order. */
const KNOWN_IDS = Object.keys(TRIGGER_OUTCOME).join(', ');

describe('validateDefinition', () => {
  const problemsOf = (definition: unknown) => {
    const result = validateDefinition(definition);
    return result.ok ? [] : result.problems;
  };

  it('accepts a small valid definition', () => {
    expect(problemsOf(small())).toEqual([]);
  });

  it('names an unknown station, an unmapped outcome, a missing target and an unreachable node', () => {
    const definition = small();
    definition.nodes.intake = { kind: 'station', station: 'run_shell', on: { done: 'generate_prd' } };
    (definition.nodes.generate_prd as { on: Record<string, string> }).on = { generated: 'nowhere' };
    definition.nodes.orphan = { kind: 'end', result: 'completed' };
    expect(problemsOf(definition)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^nodes.intake: unknown station "run_shell"/),
      'nodes.generate_prd: leads to "nowhere", which is not a node of this definition',
      'nodes.orphan: not reachable from the entry "intake"',
    ]));
    const unmapped = small();
    (unmapped.nodes.intake as { on: Record<string, string> }).on = {};
    expect(problemsOf(unmapped)).toContain('nodes.intake: station intake can return "configured", which is not mapped in "on"');
  });

  it('counts the rebase station as reached by `/service rebase` whatever its node is called, as the runtime finds it', () => {
    const renamed = clone(FEATURE_DEFINITION);
    renamed.nodes.bring_up_to_date = renamed.nodes.rebase!;
    delete renamed.nodes.rebase;
    expect(problemsOf(renamed)).toEqual([]);
    // A node called rebase that runs no rebase station is reached by nothing.
    const namedOnly = clone(FEATURE_DEFINITION);
    namedOnly.nodes.rebase = { kind: 'station', station: 'post_merge_summary', on: { done: 'done' } };
    expect(problemsOf(namedOnly)).toContain('nodes.rebase: not reachable from the entry "intake"');
  });

  it('requires a router\'s repositories_from to name a station the definition runs', () => {
    const elsewhere = clone(FEATURE_DEFINITION);
    Object.assign(elsewhere.nodes.task_router!, { repositories_from: 'decompose_plan' });
    expect(problemsOf(elsewhere)).toEqual(['nodes.task_router: repositories_from names "decompose_plan", which no station node of this definition runs']);
    const declared = FEATURE_DEFINITION.nodes.task_router;
    expect(declared?.kind === 'router' && declared.repositories_from).toBe('provision_tasks');
  });

  it('requires every outcome a gate trigger produces to be mapped, and knows only parser triggers', () => {
    const definition = small();
    (definition.nodes.gate as { accepts: string[] }).accepts.push('a question (?)', 'rm -rf');
    expect(problemsOf(definition)).toEqual([
      'nodes.gate: accepts "a question (?)", whose outcome "question" is not mapped in "on"',
      `nodes.gate: unknown trigger "rm -rf" (known: ${KNOWN_IDS})`,
    ]);
  });

  it('takes triggers by id or by legacy label, mixed too, and judges them alike', () => {
    const byId = small();
    (byId.nodes.gate as { accepts: string[] }).accepts = ['prd_approved', 'feedback'];
    expect(problemsOf(byId)).toEqual([]);
    const mixed = small();
    (mixed.nodes.gate as { accepts: string[] }).accepts = ['prd_approved', 'feedback (!)'];
    expect(problemsOf(mixed)).toEqual([]);
    // An unmapped outcome is named with the entry as the definition wrote it.
    (byId.nodes.gate as { accepts: string[] }).accepts.push('question');
    expect(problemsOf(byId)).toEqual(['nodes.gate: accepts "question", whose outcome "question" is not mapped in "on"']);
  });

  it('warns where a node accepts a trigger by its label, naming the id to write; the built-in definitions write ids', () => {
    const mixed = small();
    (mixed.nodes.gate as { accepts: string[] }).accepts = ['prd_approved', 'feedback (!)'];
    const checked = validateDefinition(mixed);
    expect(checked).toMatchObject({ ok: true, warnings: [
      'nodes.gate.accepts: "feedback (!)" is the label of the trigger "feedback"; write "feedback" (labels in accepts are deprecated: they still work, but a label may be reworded, an id is not)',
    ] });
    for (const definition of Object.values(BUILT_IN_DEFINITIONS)) expect(validateDefinition(definition)).toMatchObject({ ok: true, warnings: [] });
  });

  it('names an unknown trigger of a gate or a station and lists the ids a node may accept', () => {
    const definition = small();
    (definition.nodes.gate as { accepts: string[] }).accepts.push('a_question');
    (definition.nodes.generate_prd as { accepts?: string[] }).accepts = ['merged', 'constructor', 'service:stop'];
    expect(problemsOf(definition)).toEqual([
      `nodes.generate_prd: unknown trigger "constructor" (known: ${KNOWN_IDS})`,
      // The kill switch means something at every node; no node lists it (as before trigger ids).
      `nodes.generate_prd: unknown trigger "service:stop" (known: ${KNOWN_IDS})`,
      `nodes.gate: unknown trigger "a_question" (known: ${KNOWN_IDS})`,
    ]);
    expect(KNOWN_IDS).toMatch(/^prd_approved, spec_approved, .*, closed_unmerged$/);
    expect(KNOWN_IDS).not.toMatch(/stop_label|stop_command|[ (!?]\)/);
  });

  it('refuses code-like fields, URLs and credentials, and unknown model keys', () => {
    const withCode = clone(small()) as unknown as { nodes: Record<string, Record<string, unknown>> };
    withCode.nodes.intake!.script = 'curl evil';
    expect(problemsOf(withCode)).toEqual([expect.stringMatching(/^nodes.intake: Unrecognized key: "script"/)]);
    const withUrl = small();
    (withUrl.nodes.gate as { waiting_for?: string }).waiting_for = 'see https://example.com';
    expect(problemsOf(withUrl)).toEqual([expect.stringContaining('contains a URL or a credential-like assignment')]);
    const withKey = small();
    (withKey.nodes.generate_prd as { model_key?: string }).model_key = 'gpt_everything';
    expect(problemsOf(withKey)).toEqual(['nodes.generate_prd: unknown model_key "gpt_everything"']);
  });

  it('reports shape errors with their paths', () => {
    expect(problemsOf({ apiVersion: 'v0', name: 'X', revision: 0, entry: 'a', nodes: {} })).toEqual(expect.arrayContaining([
      expect.stringMatching(/^apiVersion: /), expect.stringMatching(/^name: expected lower_snake_case/), expect.stringMatching(/^revision: /),
    ]));
  });
});
