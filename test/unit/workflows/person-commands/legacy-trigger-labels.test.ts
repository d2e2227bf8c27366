import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { commandsAcceptedHere, nodeAccepts, type DefinitionNode, type WorkflowDefinition } from '../../../../workflows/built-in-definitions/definition-types';
import { parseCommand, type CommandDecision } from '../../../../workflows/person-commands/command-parser';
import type { WorkflowKind } from '../../../../workflows/ledger/observation';
import { permittedCommands } from '../../../../workflows/read-model/execution-view';
import type { TicketState } from '../../../../workflows/runtime/ticket-state';
import { ticketAtNode } from '../../../helpers/ticket-at-node';
import { TRIGGER_LABEL, triggerIdOf } from '../../../../workflows/vocabulary/command-words';
import { deliveriesOf, waitingPosition } from '../runtime/fixtures';

/**
 * A ticket pinned before trigger ids keeps a body whose `accepts` name triggers by their prose (their labels now), as
 * do definitions operators published then. Such a body must behave exactly as the same body by ids: the same
 * command decisions at every node, the same ignore reasons, the same "commands accepted here" and permitted commands.
 */

/** The body as it was written before trigger ids: every `accepts` entry by its label. */
function withLabels(definition: WorkflowDefinition): WorkflowDefinition {
  const nodes: Record<string, DefinitionNode> = {};
  for (const [id, node] of Object.entries(definition.nodes)) {
    nodes[id] = node.kind === 'end' || node.accepts === undefined ? node : { ...node, accepts: node.accepts.map((entry) => TRIGGER_LABEL[triggerIdOf(entry)!]) };
  }
  return { ...definition, nodes };
}

/** Every trigger some node of the definition accepts, by id. */
function triggersOf(definition: WorkflowDefinition): string[] {
  return [...new Set(Object.values(definition.nodes).flatMap((node) => nodeAccepts(node)))];
}

const KINDS = Object.entries(BUILT_IN_DEFINITIONS) as Array<[WorkflowKind, WorkflowDefinition]>;

describe('a body whose accepts are legacy labels behaves as the same body by ids', () => {
  it('the built-in bodies name their triggers by id, and their legacy copies by label', () => {
    for (const [kind, definition] of KINDS) {
      const legacy = withLabels(definition);
      const written = Object.values(definition.nodes).flatMap((node) => (node.kind === 'end' ? [] : node.accepts ?? []));
      expect(written.length, kind).toBeGreaterThan(0);
      expect(written.every((entry) => triggerIdOf(entry) === entry), kind).toBe(true);
      expect(Object.values(legacy.nodes).flatMap((node) => (node.kind === 'end' ? [] : node.accepts ?? [])).some((entry) => triggerIdOf(entry) === entry), kind).toBe(false);
    }
  });

  it.each(KINDS)('%s: the same decision for every trigger at every node, open or blocked', (kind, definition) => {
    const legacy = withLabels(definition);
    const decisions: CommandDecision[] = [];
    for (const node of Object.keys(definition.nodes)) {
      for (const trigger of triggersOf(definition)) {
        for (const is_blocked of [false, true]) {
          for (const observation of deliveriesOf(trigger, node, definition)) {
            const byId = parseCommand(observation, waitingPosition(definition, kind, node, trigger, { is_blocked }));
            const byLabel = parseCommand(observation, waitingPosition(legacy, kind, node, trigger, { is_blocked }));
            expect(byLabel, `${node} ${trigger}${is_blocked ? ' blocked' : ''}`).toEqual(byId);
            decisions.push(byId);
          }
        }
      }
    }
    // Both kinds of answer were compared: commands where accepted, and the reasons people read where not.
    expect(decisions.some((decision) => decision.kind === 'command')).toBe(true);
    expect(decisions.some((decision) => decision.kind === 'ignore' && / is not meaningful at /.test(decision.reason))).toBe(true);
  });

  it('ignore reasons name triggers by label whichever spelling the body uses', () => {
    const feature = BUILT_IN_DEFINITIONS.feature;
    const [approve] = deliveriesOf('approve', 'prd_approval_gate', feature);
    const [question] = deliveriesOf('question', 'generate_spec', feature);
    for (const definition of [feature, withLabels(feature)]) {
      expect(parseCommand(approve!, waitingPosition(definition, 'feature', 'prd_approval_gate', 'approve'))).toEqual({
        kind: 'ignore', reason: '/service approve is not meaningful at prd_approval_gate (only at plan_approval_gate, task_approval_gate)',
      });
      expect(parseCommand(question!, waitingPosition(definition, 'feature', 'generate_spec', 'question'))).toEqual({
        kind: 'ignore', reason: expect.stringMatching(/^a question \(\?\) is not meaningful at generate_spec \(only at /),
      });
    }
  });

  it.each(KINDS)('%s: the same "commands accepted here" at every gate, in the words people have always read', (_kind, definition) => {
    const legacy = withLabels(definition);
    for (const [id, node] of Object.entries(definition.nodes)) {
      if (node.kind !== 'gate') continue;
      const before = `commands accepted here: ${(legacy.nodes[id] as typeof node).accepts.join(', ')}`;
      expect(commandsAcceptedHere(node), id).toBe(before);
      expect(commandsAcceptedHere(legacy.nodes[id]), id).toBe(before);
    }
  });

  it.each(KINDS)('%s: the same permitted commands at every node, by label', (kind, definition) => {
    const legacy = withLabels(definition);
    for (const node of Object.keys(definition.nodes)) {
      for (const pullRequest of [false, true]) {
        const byId = permittedCommands(ticketAt(definition, kind, node, pullRequest));
        expect(permittedCommands(ticketAt(legacy, kind, node, pullRequest)), node).toEqual(byId);
        for (const command of byId) expect(command === 'service:retry' || triggerIdOf(command) !== command, `${node}: ${command}`).toBe(true);
      }
    }
  });
});

function ticketAt(body: WorkflowDefinition, kind: WorkflowKind, node: string, pullRequest: boolean): TicketState {
  const state = ticketAtNode(body, kind, node);
  if (pullRequest) state.pull_requests = ['acme/api#7'];
  return state;
}
