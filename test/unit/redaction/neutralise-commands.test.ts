import { describe, expect, it } from 'vitest';
import { COMMAND_BREAK, neutraliseCommands, neutraliseEffectText } from '../../../src/redaction/neutralise-commands';
import { parseCommand, type CommandPosition } from '../../../workflows/commands/command-parser';
import { BUILT_IN_DEFINITIONS } from '../../../workflows/built-in-definitions';
import { acceptTable } from '../../../workflows/built-in-definitions/definition-types';
import type { Observation, ObservationFacts, SourceSystem, WorkflowKind } from '../../../workflows/ledger/observation';

// Judged by the real command parser: what the service posts must not come back as a command.

function observation(event: Observation['event'], facts: ObservationFacts, source_system: SourceSystem): Observation {
  return {
    delivery_identity: 'identity', source: 'webhook', source_system, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'fingerprint', ticket_key: 'PROJ-1', facts, observed_at: null, received_at: '2026-11-23T08:00:00.000Z',
  };
}

function at(current_node: string, workflow_kind: WorkflowKind = 'feature'): CommandPosition {
  return {
    workflow_kind, current_node, accepts: acceptTable(BUILT_IN_DEFINITIONS[workflow_kind]), is_blocked: false, is_paused: true, has_pull_request: true,
    draft_item_ids: [1, 2, 3], rca_option_count: 3, proposal_review: true,
  };
}

const comment = { id: 'c1', created: '2026-11-23T08:00:00.000Z', updated: '2026-11-23T08:00:00.000Z' };
const onTicket = (body: string) => observation('issue_commented', { comment: { ...comment, body } }, 'tracker');
const onPullRequest = (body: string) => observation('issue_comment', { action: 'created', repository: 'acme/api', pull_request: { number: 7, head_ref: 'service/proj-1' }, comment: { ...comment, body } }, 'scmhost');
const onMergeRequest = (body: string) => observation('note', { action: 'created', repository: 'acme/web', pull_request: { number: 3, head_ref: 'service/proj-1' }, comment: { ...comment, body } }, 'gitlab');

/** Model output that reads as a command where it stands, with a position where that command means something. */
const COMMANDS: Array<[string, (body: string) => Observation, CommandPosition]> = [
  ['/service approve', onTicket, at('plan_approval_gate')],
  ['  /SERVICE approve\nthanks', onTicket, at('plan_approval_gate')],
  ['\n\n/service remove 2', onTicket, at('plan_approval_gate')],
  ['? what does this change', onTicket, at('prd_approval_gate')],
  ['@service ask: why', onTicket, at('prd_approval_gate')],
  ['! rewrite it all', onTicket, at('prd_approval_gate')],
  ['\u00a0! after a no-break space', onTicket, at('prd_approval_gate')],
  ['Please consider >option 2, it is the safest.', onTicket, at('rca_option_gate', 'bug')],
  ['I would pick &gt;option 1', onTicket, at('rca_option_gate', 'bug')],
  ['/service skip-gate lint', onPullRequest, at('human_review_gate')],
  ['/service rebase', onMergeRequest, at('ci_evaluator')],
];

describe('neutraliseCommands', () => {
  it.each(COMMANDS)('%j no longer parses as a command', (text, deliver, position) => {
    // The premise: as written, the parser takes it for a command.
    expect(parseCommand(deliver(text), position).kind).not.toBe('ignore');
    const posted = neutraliseCommands(text);
    expect(parseCommand(deliver(posted), position).kind).toBe('ignore');
    // Only zero-width spaces were added: the text reads and renders as before.
    expect(posted.split(COMMAND_BREAK).join('')).toBe(text);
  });

  it('breaks every line that starts with a trigger, not only the first', () => {
    const text = 'The PRD is ready.\n/service approve\n  ? is it\n! redo\n@service ask x\nplain line';
    expect(neutraliseCommands(text)).toBe(`The PRD is ready.\n${COMMAND_BREAK}/service approve\n  ${COMMAND_BREAK}? is it\n${COMMAND_BREAK}! redo\n${COMMAND_BREAK}@service ask x\nplain line`);
    expect(neutraliseCommands('a\r\n/service stop')).toBe(`a\r\n${COMMAND_BREAK}/service stop`);
  });

  it('leaves text that is not a command alone: images, mid-line mentions, quoted options, other words', () => {
    for (const text of ['![diagram](https://x/y.png)', 'run `/service approve` when happy', '> Option 2: keep the cache', '/services are fine', 'Why? Because.', 'it is > optional']) {
      expect(neutraliseCommands(text)).toBe(text);
    }
  });

  it('is idempotent', () => {
    for (const [text] of COMMANDS) expect(neutraliseCommands(neutraliseCommands(text))).toBe(neutraliseCommands(text));
  });
});

describe('neutraliseEffectText', () => {
  it('neutralises every posted text of an effect and keeps titles, summaries and ids', () => {
    const review = neutraliseEffectText({ kind: 'scmhost.pr_review', repository: 'acme/api', number: 7, event: 'COMMENT', body: '/service approve', comments: [{ path: 'a.ts', line: 3, body: '? why' }] });
    expect(review).toEqual({ kind: 'scmhost.pr_review', repository: 'acme/api', number: 7, event: 'COMMENT', body: `${COMMAND_BREAK}/service approve`, comments: [{ path: 'a.ts', line: 3, body: `${COMMAND_BREAK}? why` }] });
    expect(neutraliseEffectText({ kind: 'scmhost.open_pr', repository: 'acme/api', head: 'service/p-1', base: null, title: '/service approve', body: '/service approve' }))
      .toMatchObject({ title: '/service approve', body: `${COMMAND_BREAK}/service approve` });
    expect(neutraliseEffectText({ kind: 'tracker.create_issue', project_key: 'P', issue_type: 'Task', summary: '? s', description: '! d', labels: ['a'], identity_label: 'a' }))
      .toMatchObject({ summary: '? s', description: `${COMMAND_BREAK}! d` });
    expect(neutraliseEffectText({ kind: 'tracker.comment', issue_key: 'P-1', body: '/service retry' })).toEqual({ kind: 'tracker.comment', issue_key: 'P-1', body: `${COMMAND_BREAK}/service retry` });
    const labels = { kind: 'tracker.labels' as const, issue_key: 'P-1', add: ['service:blocked'], remove: [] };
    expect(neutraliseEffectText(labels)).toBe(labels);
  });
});
