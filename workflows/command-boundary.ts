import {
  APPROVAL_GATES, APPROVAL_LABELS, ARTIFACT_GATES, CI_POSITIONS, COMMENT_APPROVAL_GATES, DRAFT_GATES, isAt, OPTION_GATE,
  REVIEW_POSITIONS, REVIEW_RESPONSE_GATE, TRIAGE_GATE,
} from './command-positions';
import type { Observation } from './observation';

/**
 * The command boundary (SPEC 2.4, 3.2): a pure function from an accepted observation and the saved position to a
 * command, an ignore with its reason, or an invalid command with the ❌ reply to post. Provider facts never set the
 * position; only commands meaningful where the ticket stands move it.
 */

export type DraftFields = { summary?: string; description?: string; repo?: string };

export type Command =
  | { type: 'approve'; gate: string; via: 'label' | 'comment' | 'merge' }
  | { type: 'retry'; mode: 'resume' | 'review_response' | 'regenerate' }
  | { type: 'yolo' }
  | { type: 'retriage' }
  | { type: 'question'; text: string }
  | { type: 'feedback'; text: string }
  | { type: 'draft_remove'; id: number }
  | { type: 'draft_exclude'; id: number }
  | { type: 'draft_update'; id: number; fields: DraftFields }
  | { type: 'draft_add'; fields: DraftFields }
  | { type: 'select_option'; option: number }
  | { type: 'skip_gate'; check: string }
  | { type: 'unskip_gate'; check: string }
  | { type: 'rebase' }
  | { type: 'review'; state: 'approved' | 'changes_requested'; review_id: string; body: string }
  | { type: 'ci_completed'; check: string; conclusion: string | null; head_sha: string }
  | { type: 'pr_merged'; number: number };

export type CommandDecision =
  | { kind: 'command'; command: Command }
  | { kind: 'ignore'; reason: string }
  | { kind: 'invalid'; reason: string; reply: string; blocks: boolean };

export interface CommandPosition {
  current_node: string;
  is_blocked: boolean;
  is_paused: boolean;
  has_pull_request: boolean;
  /** Local sequential ids of the draft at a plan or task gate. */
  draft_item_ids?: number[];
  /** How many fix options the RCA offers at rca_option_gate. */
  rca_option_count?: number;
}

const KNOWN_VERBS = ['approve', 'remove', 'exclude', 'update', 'add', 'skip-gate', 'unskip-gate', 'rebase'] as const;
const DRAFT_KEYS = ['summary', 'description', 'repo'] as const;

const ignore = (reason: string): CommandDecision => ({ kind: 'ignore', reason });
const command = (value: Command): CommandDecision => ({ kind: 'command', command: value });

function echo(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function invalid(text: string, reason: string, hint: string, blocks = false): CommandDecision {
  return { kind: 'invalid', reason, blocks, reply: `❌ \`${echo(text)}\`: ${reason}. ${hint}` };
}

function notHere(what: string, node: string): CommandDecision {
  return ignore(`${what} is not meaningful at ${node}`);
}

/** `key=value key2="two words" key3='x'` -> pairs; undefined when the syntax is broken. */
export function parseKeyValues(text: string): Array<[string, string]> | undefined {
  const pairs: Array<[string, string]> = [];
  const pattern = /\s*([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|'([^']*)'|([^\s'"]\S*))/y;
  let index = 0;
  const rest = text.trim();
  while (index < rest.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(rest);
    if (!match) return undefined;
    pairs.push([match[1]!, match[3] ?? match[4] ?? match[5] ?? '']);
    index = pattern.lastIndex;
    while (rest[index] === ' ') index += 1;
  }
  return pairs;
}

function draftFields(text: string, args: string): { fields: DraftFields } | { error: CommandDecision } {
  const pairs = parseKeyValues(args);
  if (!pairs || pairs.length === 0) return { error: invalid(text, 'expected key=value pairs', 'Quote values with spaces: summary="Export as CSV".') };
  const fields: DraftFields = {};
  for (const [key, value] of pairs) {
    if (!(DRAFT_KEYS as readonly string[]).includes(key)) return { error: invalid(text, `unknown field "${key}"`, `Fields: ${DRAFT_KEYS.join(', ')}.`) };
    fields[key as keyof DraftFields] = value;
  }
  return { fields };
}

function draftId(text: string, raw: string | undefined, position: CommandPosition): { id: number } | { error: CommandDecision } {
  if (!raw || !/^[1-9][0-9]*$/.test(raw)) return { error: invalid(text, 'expected a draft item number', 'Draft items are numbered from 1.') };
  const id = Number(raw);
  const ids = position.draft_item_ids ?? [];
  if (!ids.includes(id)) {
    const range = ids.length ? `items: ${Math.min(...ids)}-${Math.max(...ids)}` : 'the draft is empty';
    return { error: invalid(text, `there is no draft item ${id} (${range})`, 'Check the numbers in the latest draft comment.') };
  }
  return { id };
}

function serviceCommand(text: string, position: CommandPosition, fromPullRequest: boolean): CommandDecision {
  const body = text.trim().replace(/^\/service\b/i, '').trim();
  const [rawVerb = '', ...restWords] = body.split(/\s+/);
  const verb = rawVerb.toLowerCase();
  const args = body.slice(rawVerb.length).trim();
  const node = position.current_node;
  if (!(KNOWN_VERBS as readonly string[]).includes(verb)) {
    return invalid(text, verb ? `unknown command "${rawVerb.length > 40 ? `${rawVerb.slice(0, 40)}…` : rawVerb}"` : 'no command given', `Known commands: ${KNOWN_VERBS.join(', ')}.`, true);
  }
  switch (verb) {
    case 'approve':
      return isAt(node, COMMENT_APPROVAL_GATES) ? command({ type: 'approve', gate: node, via: 'comment' }) : notHere('/service approve', node);
    case 'remove':
    case 'exclude': {
      if (!isAt(node, DRAFT_GATES)) return notHere(`/service ${verb}`, node);
      const parsed = draftId(text, restWords[0], position);
      if ('error' in parsed) return parsed.error;
      if (restWords.length > 1) return invalid(text, `/service ${verb} takes one item number`, `Example: /service ${verb} 2.`);
      return command({ type: verb === 'remove' ? 'draft_remove' : 'draft_exclude', id: parsed.id });
    }
    case 'update': {
      if (!isAt(node, DRAFT_GATES)) return notHere('/service update', node);
      const parsed = draftId(text, restWords[0], position);
      if ('error' in parsed) return parsed.error;
      const fields = draftFields(text, args.slice(restWords[0]!.length));
      return 'error' in fields ? fields.error : command({ type: 'draft_update', id: parsed.id, fields: fields.fields });
    }
    case 'add': {
      if (!isAt(node, DRAFT_GATES)) return notHere('/service add', node);
      const fields = draftFields(text, args);
      if ('error' in fields) return fields.error;
      if (!fields.fields.summary) return invalid(text, 'a new draft item needs a summary', 'Example: /service add summary="Export as CSV" repo=acme/api.');
      return command({ type: 'draft_add', fields: fields.fields });
    }
    case 'skip-gate':
    case 'unskip-gate': {
      if (!fromPullRequest) return ignore(`/service ${verb} is a pull-request command`);
      if (!isAt(node, CI_POSITIONS)) return notHere(`/service ${verb}`, node);
      if (!args) return invalid(text, 'expected the name (or part of the name) of a check', `Example: /service ${verb} lint.`);
      return command({ type: verb === 'skip-gate' ? 'skip_gate' : 'unskip_gate', check: args.toLowerCase() });
    }
    default:
      return position.has_pull_request ? command({ type: 'rebase' }) : ignore('/service rebase needs a pull request');
  }
}

function trackerComment(text: string, position: CommandPosition): CommandDecision {
  const trimmed = text.trimStart();
  const node = position.current_node;
  if (/^\/service\b/i.test(trimmed)) return serviceCommand(trimmed, position, false);
  if (/^(\?|@service\s+ask\b)/i.test(trimmed)) {
    const question = trimmed.replace(/^(\?|@service\s+ask\b)/i, '').trim();
    return isAt(node, ARTIFACT_GATES) ? command({ type: 'question', text: question }) : notHere('a question', node);
  }
  if (trimmed.startsWith('!')) {
    return isAt(node, ARTIFACT_GATES) ? command({ type: 'feedback', text: trimmed.slice(1).trim() }) : notHere('feedback (!)', node);
  }
  const option = /(^|\s)>option\s+([0-9]+)\b/i.exec(trimmed);
  if (option) {
    if (node !== OPTION_GATE) return notHere('>option', node);
    const n = Number(option[2]);
    return n >= 1 && n <= (position.rca_option_count ?? 0) ? command({ type: 'select_option', option: n }) : ignore(`option ${n} is out of range (1-${position.rca_option_count ?? 0})`);
  }
  return ignore('conversation, not a command');
}

function labelChange(observation: Observation, position: CommandPosition): CommandDecision {
  const change = observation.facts.label_change;
  const node = position.current_node;
  if (!change) {
    return node === TRIAGE_GATE ? command({ type: 'retriage' }) : ignore('ticket update without label changes');
  }
  if (change.added.includes('service:retry')) {
    if (position.is_blocked) return command({ type: 'retry', mode: 'resume' });
    if (node === REVIEW_RESPONSE_GATE) return command({ type: 'retry', mode: 'review_response' });
    if (position.is_paused && isAt(node, APPROVAL_GATES)) return command({ type: 'retry', mode: 'regenerate' });
    return ignore(`service:retry: nothing to retry at ${node} (not blocked)`);
  }
  for (const label of change.added) {
    const gates = APPROVAL_LABELS[label];
    if (gates) return isAt(node, gates) ? command({ type: 'approve', gate: node, via: 'label' }) : notHere(label, node);
  }
  if (change.added.includes('service:yolo')) return command({ type: 'yolo' });
  if (node === TRIAGE_GATE) return command({ type: 'retriage' });
  return ignore(`label change (${[...change.added.map((l) => `+${l}`), ...change.removed.map((l) => `-${l}`)].join(' ') || 'none'}) is not a command`);
}

export function parseCommand(observation: Observation, position: CommandPosition): CommandDecision {
  const facts = observation.facts;
  const node = position.current_node;
  switch (observation.event) {
    case 'issue_created':
      return ignore('the workflow start, not a command');
    case 'issue_updated':
      return labelChange(observation, position);
    case 'issue_commented':
      return facts.comment ? trackerComment(facts.comment.body, position) : ignore('comment without a body');
    case 'issue_comment':
    case 'note': {
      const text = facts.comment?.body.trimStart() ?? '';
      return /^\/service\b/i.test(text) ? serviceCommand(text, position, true) : ignore('pull-request conversation, not a command');
    }
    case 'pull_request_review': {
      const review = facts.review;
      if (!review) return ignore('review without a state');
      if (!isAt(node, REVIEW_POSITIONS)) return notHere(`a ${review.state} review`, node);
      // SPEC 3.2: a plain "commented" review asks for changes like changes_requested does.
      return command({ type: 'review', state: review.state === 'approved' ? 'approved' : 'changes_requested', review_id: review.id, body: review.body });
    }
    case 'check_run':
    case 'pipeline': {
      const run = facts.check_run ?? (facts.pipeline && { name: 'pipeline', conclusion: facts.pipeline.status, head_sha: facts.pipeline.sha });
      if (!run) return ignore('CI event without a result');
      return isAt(node, CI_POSITIONS) ? command({ type: 'ci_completed', check: run.name, conclusion: run.conclusion, head_sha: run.head_sha }) : notHere('a CI result', node);
    }
    case 'pull_request':
    case 'merge_request': {
      const pr = facts.pull_request;
      if (!pr?.merged) return ignore(`pull request ${facts.action ?? 'update'} is not a command`);
      if (isAt(node, REVIEW_POSITIONS)) return command({ type: 'pr_merged', number: pr.number });
      // Proposal review: merging the PRD or spec proposal approves the artifact.
      if (node === 'prd_approval_gate' || node === 'spec_approval_gate') return command({ type: 'approve', gate: node, via: 'merge' });
      return notHere('a merge', node);
    }
    default:
      return ignore(`${observation.event} is not a command`);
  }
}
