import { describe, expect, it } from 'vitest';
import { assertNoCommand, COMMAND_BREAK, CommandNeutralisationError, neutraliseCommands, neutraliseEffectText } from '../../../src/redaction/neutralise-commands';
import { ticketCommentRequest } from '../../../workflows/person-commands/command-comments';
import { parseCommand, type CommandPosition } from '../../../workflows/person-commands/command-parser';
import { BUILT_IN_DEFINITIONS } from '../../../workflows/built-in-definitions';
import { acceptTable } from '../../../workflows/built-in-definitions/definition-types';
import { gateTable } from '../../../workflows/runtime/node-traits';
import type { Observation, ObservationFacts, SourceSystem, WorkflowKind } from '../../../workflows/ledger/observation';
import { HOSTILE_COMMAND_TEXTS, ORDINARY_TEXTS } from '../../fixtures/hostile-command-lines';

// Judged by the real command parser: what the service posts must not come back as a command.

function observation(event: Observation['event'], facts: ObservationFacts, source_system: SourceSystem): Observation {
  return {
    delivery_identity: 'identity', source: 'webhook', source_system, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'fingerprint', ticket_key: 'PROJ-1', facts, observed_at: null, received_at: '2026-11-23T08:00:00.000Z',
  };
}

function at(current_node: string, workflow_kind: WorkflowKind = 'feature'): CommandPosition {
  return {
    workflow_kind, current_node, accepts: acceptTable(BUILT_IN_DEFINITIONS[workflow_kind]), gates: gateTable(BUILT_IN_DEFINITIONS[workflow_kind]), is_blocked: false, is_paused: true, has_pull_request: true,
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

/**
 * How the comment grammar reads what an attacker would try, decided here once: what it reads as a command the
 * neutraliser must break; what it does not read needs no break (the Jira reader's renderings are the round trip's).
 */
const GRAMMAR_READS: Array<[string, string, ReturnType<typeof ticketCommentRequest>]> = [
  ['a byte order mark, which trimStart removes', '\uFEFF/service approve', 'service_command'],
  ['a no-break space', '\u00A0/service approve', 'service_command'],
  ['an ideographic space', '\u3000? why', 'question'],
  ['an em space', '\u2003! redo', 'feedback'],
  ['a tab, a vertical tab and a form feed', '\t\u000B\u000C/service approve', 'service_command'],
  ['a line separator', '\u2028/service approve', 'service_command'],
  ['the entity the tracker escapes `>` to', 'pick &gt;option 1', 'option'],
  ['`>option` with its number on the next line', 'pick >option\n2', 'option'],
  ['`@service` with `ask` on the next line', '@service\nask why', 'question'],
  ['a zero-width space', '\u200B/service approve', undefined],
  ['a zero-width non-joiner', '\u200C/service approve', undefined],
  ['a zero-width joiner', '\u200D! redo', undefined],
  ['a word joiner', '\u2060? why', undefined],
  ['a zero-width space inside the prefix', '/ser\u200Bvice approve', undefined],
  ['a full-width solidus', '\uFF0Fservice approve', undefined],
  ['a full-width exclamation mark', '\uFF01 redo', undefined],
  ['a full-width question mark', '\uFF1F why', undefined],
  ['a quote marker', '> /service approve', undefined],
  ['a list marker', '- /service approve', undefined],
  ['emphasis around it', '**/service approve**', undefined],
  ['inline code', '`/service approve`', undefined],
  ['a link whose text is the prefix', '[/service](/service) approve', undefined],
  ['an escaped feedback mark', '\\!ship', undefined],
  ['an HTML entity for the solidus', '&#47;service approve', undefined],
  ['a numeric entity for `>`', '&#62;option 1', undefined],
  ['a space after `>`', '> Option 2', undefined],
];

describe('the comment grammar and the neutraliser agree', () => {
  it.each(GRAMMAR_READS)('%s: the grammar reads %j as %s, and not once neutralised', (_name, text, request) => {
    expect(ticketCommentRequest(text)).toBe(request);
    const posted = neutraliseCommands(text);
    expect(ticketCommentRequest(posted)).toBeUndefined();
    // What the grammar does not read is not touched: a break is only where a command was.
    if (request === undefined) expect(posted).toBe(text);
  });
});

describe('neutraliseCommands on the corpus of hostile text', () => {
  const lineBeginnings = (text: string) => [0, ...[...text.matchAll(/[\n\r\v\f\u0085\u2028\u2029]/g)].map((m) => m.index + 1)];

  it.each(HOSTILE_COMMAND_TEXTS.map((entry) => [entry.name, entry.text]))('%s: no line of it commands, and only zero-width spaces were added', (_name, text) => {
    const posted = neutraliseCommands(text);
    for (const start of lineBeginnings(posted)) expect(ticketCommentRequest(posted.slice(start)), JSON.stringify(posted.slice(start))).toBeUndefined();
    expect(posted.split(COMMAND_BREAK).join('')).toBe(text.split(COMMAND_BREAK).join(''));
    expect(neutraliseCommands(posted)).toBe(posted);
  });

  it('marks which texts the grammar reads as written, so the corpus stays honest', () => {
    for (const entry of HOSTILE_COMMAND_TEXTS) {
      const readsRaw = lineBeginnings(entry.text).some((start) => ticketCommentRequest(entry.text.slice(start)) !== undefined);
      expect(readsRaw, entry.name).toBe(entry.reads_raw);
    }
  });

  it('leaves text with no command in it exactly as written', () => {
    for (const text of ORDINARY_TEXTS) expect(neutraliseCommands(text)).toBe(text);
  });
});

describe('assertNoCommand', () => {
  it('refuses a text the grammar reads as a command, naming the text and the line but not quoting it', () => {
    const error = (() => { try { assertNoCommand('Ready.\n\n  /service approve', 'the text of tracker.comment'); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(CommandNeutralisationError);
    expect((error as Error).message).toMatch(/^the text of tracker\.comment would still read as a command \(service_command from line 3\)/);
    expect((error as Error).message).toContain('src/redaction/neutralise-commands.ts');
    expect((error as Error).message).not.toContain('approve');
    expect(() => assertNoCommand('take &gt;option 2', 'x')).toThrow(/option\)/);
    expect(() => assertNoCommand(neutraliseCommands('take &gt;option 2\n? why'), 'x')).not.toThrow();
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
