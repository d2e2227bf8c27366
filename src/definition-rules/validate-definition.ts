import { GATE_KINDS, nodeTriggerOf, outcomesOfTrigger, ROUTER_OUTCOMES, STATION_OUTCOMES, TRIGGER_OUTCOME } from '../../workflows/built-in-definitions/catalogue';
import { RETURN_TARGET, type DefinitionNode, type WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { MODEL_POLICY_KEYS } from '../config/model-policy-keys';
import { parseDefinition } from './definition-schema';
import { rebaseNodeOf } from '../../workflows/runtime/rebase-decision';
import { ESCALATE_NODE } from '../../workflows/runtime/enter';
import { triggerIdOf } from '../../workflows/vocabulary/command-words';

export interface DefinitionCatalogue {
  stations: Readonly<Record<string, readonly string[]>>;
  routers: Readonly<Record<string, readonly string[]>>;
  gates: readonly string[];
}

export const BUILT_IN_CATALOGUE: DefinitionCatalogue = { stations: STATION_OUTCOMES, routers: ROUTER_OUTCOMES, gates: GATE_KINDS };

const URL_OR_SECRET = /(https?:\/\/|\b(token|secret|password|api[_-]?key)\s*[:=])/i;

function targetsOf(node: DefinitionNode): string[] {
  if (node.kind === 'end') return [];
  const targets = Object.values(node.on);
  if (node.kind === 'station' && node.retry_bound !== undefined) targets.push(node.on_exhausted ?? ESCALATE_NODE);
  if (node.kind === 'gate' && node.retry_to !== undefined) targets.push(node.retry_to);
  return targets;
}

/**
 * An `accepts` entry that names no trigger a node may accept, with the ids it could have named. A legacy label (the
 * trigger's prose before ids) is read as its id, so only the ids are offered: they are what new definitions write.
 */
function unknownTrigger(where: string, entry: string): string {
  return `${where}: unknown trigger "${entry}" (known: ${Object.keys(TRIGGER_OUTCOME).join(', ')})`;
}

function checkNode(id: string, node: DefinitionNode, definition: WorkflowDefinition, catalogue: DefinitionCatalogue, problems: string[]): void {
  const where = `nodes.${id}`;
  for (const target of targetsOf(node)) {
    if (target !== RETURN_TARGET && !definition.nodes[target]) problems.push(`${where}: leads to "${target}", which is not a node of this definition`);
  }
  if (node.kind === 'station') {
    const outcomes = catalogue.stations[node.station];
    if (!outcomes) {
      problems.push(`${where}: unknown station "${node.station}" (known: ${Object.keys(catalogue.stations).sort().join(', ')})`);
    } else {
      for (const outcome of outcomes) if (!(outcome in node.on)) problems.push(`${where}: station ${node.station} can return "${outcome}", which is not mapped in "on"`);
      for (const outcome of Object.keys(node.on)) if (!outcomes.includes(outcome)) problems.push(`${where}: station ${node.station} never returns "${outcome}"`);
    }
    if (node.model_key && !(MODEL_POLICY_KEYS as readonly string[]).includes(node.model_key)) problems.push(`${where}: unknown model_key "${node.model_key}"`);
  }
  if (node.kind === 'router') {
    const outcomes = catalogue.routers[node.router];
    if (!outcomes) problems.push(`${where}: unknown router "${node.router}" (known: ${Object.keys(catalogue.routers).sort().join(', ')})`);
    else for (const outcome of outcomes) if (!(outcome in node.on)) problems.push(`${where}: router ${node.router} can decide "${outcome}", which is not mapped in "on"`);
    if (node.repositories_from !== undefined && !Object.values(definition.nodes).some((other) => other.kind === 'station' && other.station === node.repositories_from)) {
      problems.push(`${where}: repositories_from names "${node.repositories_from}", which no station node of this definition runs`);
    }
  }
  if (node.kind === 'gate') {
    if (!catalogue.gates.includes(node.gate)) problems.push(`${where}: unknown gate kind "${node.gate}" (known: ${catalogue.gates.join(', ')})`);
    // A retriaging `!` leaves the gate by its `retriage` outcome (workflows/runtime/gate-meaning.ts), not by `feedback`.
    if (node.feedback_retriages && !('retriage' in node.on)) problems.push(`${where}: feedback_retriages, whose outcome "retriage" is not mapped in "on"`);
    for (const entry of node.accepts) {
      const trigger = nodeTriggerOf(entry);
      if (trigger === undefined) {
        problems.push(unknownTrigger(where, entry));
        continue;
      }
      for (const outcome of outcomesOfTrigger(trigger)) {
        if (!(outcome in node.on)) problems.push(`${where}: accepts "${entry}", whose outcome "${outcome}" is not mapped in "on"`);
      }
    }
  }
  if (node.kind !== 'end' && node.kind !== 'gate') {
    for (const entry of node.accepts ?? []) if (nodeTriggerOf(entry) === undefined) problems.push(unknownTrigger(where, entry));
  }
}

/**
 * A proposal pull request approves the gate that reviews its kind, so two such gates would leave its merge (and its
 * review comments) without one meaning.
 */
function proposalGateProblems(definition: WorkflowDefinition): string[] {
  const problems: string[] = [];
  const reviewer: Record<string, string> = {};
  for (const [id, node] of Object.entries(definition.nodes)) {
    if (node.kind !== 'gate' || node.reviews_proposal === undefined) continue;
    const first = reviewer[node.reviews_proposal];
    if (first) problems.push(`nodes.${id}: reviews the ${node.reviews_proposal} proposal, as nodes.${first} does; one gate per proposal kind`);
    else reviewer[node.reviews_proposal] = id;
  }
  return problems;
}

function unreachable(definition: WorkflowDefinition): string[] {
  // `/service rebase` enters its node from wherever the ticket stands (and returns there): reachable without an edge.
  // The same judgement the runtime makes of which node that is (workflows/runtime/rebase-decision.ts).
  const rebaseNode = rebaseNodeOf(definition);
  const roots = [definition.entry, ...(rebaseNode === undefined ? [] : [rebaseNode])];
  const seen = new Set<string>(roots);
  const queue = [...roots];
  while (queue.length > 0) {
    const node = definition.nodes[queue.shift()!];
    if (!node) continue;
    for (const target of targetsOf(node)) {
      if (target !== RETURN_TARGET && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return Object.keys(definition.nodes).filter((id) => !seen.has(id));
}

/**
 * Validates a definition for use: the shape (zod), then its meaning against the catalogue: only known stations,
 * gates and routers; every outcome a station or router can produce and every trigger a gate accepts is mapped; every
 * target exists; every node is reachable from the entry; no URLs or credentials in any string. One line per problem.
 */
/**
 * Triggers a node accepts written as their label (`service:prd-approved`, `a question (?)`), the spelling of bodies
 * from before the stable ids: still read, but a label may be reworded and the id may not. One line per entry.
 */
export function deprecatedTriggerSpellings(definition: WorkflowDefinition): string[] {
  const warnings: string[] = [];
  for (const [id, node] of Object.entries(definition.nodes)) {
    if (node.kind === 'end' || !node.accepts) continue;
    for (const entry of node.accepts) {
      const trigger = triggerIdOf(entry);
      if (trigger !== undefined && trigger !== entry) {
        warnings.push(`nodes.${id}.accepts: "${entry}" is the label of the trigger "${trigger}"; write "${trigger}" (labels in accepts are deprecated: they still work, but a label may be reworded, an id is not)`);
      }
    }
  }
  return warnings;
}

export function validateDefinition(
  input: unknown, catalogue: DefinitionCatalogue = BUILT_IN_CATALOGUE,
): { ok: true; definition: WorkflowDefinition; warnings: string[] } | { ok: false; problems: string[] } {
  const parsed = parseDefinition(input);
  if (!parsed.ok) return parsed;
  const definition = parsed.definition;
  const problems: string[] = [];
  if (!definition.nodes[definition.entry]) problems.push(`entry: "${definition.entry}" is not a node of this definition`);
  for (const [id, node] of Object.entries(definition.nodes)) checkNode(id, node, definition, catalogue, problems);
  problems.push(...proposalGateProblems(definition));
  for (const id of unreachable(definition)) problems.push(`nodes.${id}: not reachable from the entry "${definition.entry}"`);
  if (!Object.values(definition.nodes).some((node) => node.kind === 'end')) problems.push('nodes: no end node; a ticket could never finish');
  const text = JSON.stringify(definition);
  if (URL_OR_SECRET.test(text)) problems.push('definition: contains a URL or a credential-like assignment; definitions hold no endpoints and no secrets');
  return problems.length > 0 ? { ok: false, problems } : { ok: true, definition, warnings: deprecatedTriggerSpellings(definition) };
}
