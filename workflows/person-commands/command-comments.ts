import { parseItemId } from './command-args';
import { whyNotMeaningful } from './command-meaning';
import { invalidCommand } from './command-replies';
import { decideServiceCommand, isServiceCommand } from './command-service-verbs';
import type { CommandDecision, CommandPosition, PullRequestTarget } from './command-types';
import { TRIGGER } from '../vocabulary/command-words';

/**
 * Comment grammar (REFERENCE "Commands"). On the ticket: `?` or `@service ask` asks, `!` gives feedback,
 * `/service <verb>` commands, `>option N` anywhere picks an RCA option; the first three are read at the start of
 * the comment (after leading whitespace) and win over `>option`, so "? is >option 2 risky" is a question. On a pull
 * request only `/service <verb>` is a command. Everything else is conversation.
 */

const QUESTION = /^(?:\?|@service\s+ask\b:?)/i;
/** `!` gives feedback, but `![alt](url)` is a markdown image at the start of a comment. */
const FEEDBACK = /^!(?!\[)/;
/** `! 2: text` narrows feedback to draft item 2; the colon keeps "! 2 epics are too many" general feedback. */
const ITEM_FEEDBACK = /^(\d+)\s*:\s*/;
/**
 * `>option N` with no space after `>` ("> Option 2" is a quoted line of the RCA comment); `&gt;` when the tracker's
 * markdown escaped it.
 */
const OPTION = /(?:>|&gt;)option\s*(\d{1,9})(?!\d)/gi;

const ignore = (reason: string): CommandDecision => ({ kind: 'ignore', reason });

function decideQuestion(body: string, text: string, position: CommandPosition): CommandDecision {
  const notMeaningful = whyNotMeaningful(TRIGGER.question, position);
  if (notMeaningful) return ignore(notMeaningful);
  if (text === '') return invalidCommand(body, 'there is no question after it', 'Write the question in the same comment, e.g. `? why two epics`.');
  return { kind: 'command', command: { type: 'question', text } };
}

function decideFeedback(text: string, position: CommandPosition): CommandDecision {
  const notMeaningful = whyNotMeaningful(TRIGGER.feedback, position);
  if (notMeaningful) return ignore(notMeaningful);
  // At a gate that says so (the triage gate), the `!` reply carries the details triage asked for.
  if (position.gates[position.current_node]?.feedback_retriages) return { kind: 'command', command: { type: 'retriage', trigger: 'feedback', text } };
  const item = ITEM_FEEDBACK.exec(text);
  if (item && !whyNotMeaningful(TRIGGER.draftItemFeedback, position)) {
    const id = parseItemId(item[1], position.draft_item_ids ?? [], '! 2: split this into two tasks');
    if (!id.ok) return invalidCommand(`! ${text}`, id.problem, `${id.hint} Without a number, \`!\` revises the whole draft.`);
    return { kind: 'command', command: { type: 'feedback', text: text.slice(item[0].length).trim(), item_id: id.value, via: 'comment' } };
  }
  return { kind: 'command', command: { type: 'feedback', text, via: 'comment' } };
}

/**
 * Out-of-range numbers are ignored (REFERENCE); two different valid choices in one comment are ambiguous. The hint
 * names no literal `>option <digit>`: posted text has those broken up (src/redaction/neutralise-commands.ts), and a
 * person copying the example would copy a command that no longer parses.
 */
function decideOption(numbers: number[], body: string, position: CommandPosition): CommandDecision {
  const notMeaningful = whyNotMeaningful(TRIGGER.option, position);
  if (notMeaningful) return ignore(notMeaningful);
  const count = position.rca_option_count ?? 0;
  const valid = [...new Set(numbers.filter((n) => n >= 1 && n <= count))];
  if (valid.length === 0) return ignore(`>option ${numbers.join(', ')}: out of range (the RCA offers ${count === 0 ? 'no options' : `options 1-${count}`})`);
  if (valid.length > 1) return invalidCommand(body, `it picks options ${valid.join(' and ')}`, 'Pick one option per comment: one `>option N`, N its number.');
  return { kind: 'command', command: { type: 'select_option', option: valid[0]! } };
}

/** What a ticket comment asks for by the grammar above, before anything judges whether it means something here. */
export type TicketCommentRequest = 'service_command' | 'question' | 'feedback' | 'option';

/**
 * What a comment asks for by the way it starts: a `/service` verb, a question or feedback. The neutraliser of posted
 * text (src/redaction/neutralise-commands.ts) asks this of every line start, so the two cannot disagree.
 */
export function commentStartRequest(comment: string): Exclude<TicketCommentRequest, 'option'> | undefined {
  const body = comment.trimStart();
  if (isServiceCommand(body)) return 'service_command';
  if (QUESTION.test(body)) return 'question';
  if (FEEDBACK.test(body)) return 'feedback';
  return undefined;
}

export function ticketCommentRequest(comment: string): TicketCommentRequest | undefined {
  return commentStartRequest(comment) ?? ([...comment.matchAll(OPTION)].length > 0 ? 'option' : undefined);
}

export function decideTicketComment(comment: string, position: CommandPosition): CommandDecision {
  const body = comment.trimStart();
  if (isServiceCommand(body)) return decideServiceCommand({ text: body, written_on: 'ticket' }, position);
  const question = QUESTION.exec(body);
  if (question) return decideQuestion(body, body.slice(question[0].length).trim(), position);
  if (FEEDBACK.test(body)) return decideFeedback(body.slice(1).trim(), position);
  const options = [...body.matchAll(OPTION)].map((match) => Number(match[1]));
  if (options.length > 0) return decideOption(options, body, position);
  return ignore('conversation, not a command');
}

export function decidePullRequestComment(comment: string, pullRequest: PullRequestTarget | undefined, position: CommandPosition): CommandDecision {
  const body = comment.trimStart();
  if (!isServiceCommand(body)) return ignore('pull-request conversation, not a command');
  return decideServiceCommand({ text: body, written_on: 'pull_request', ...(pullRequest ? { pull_request: pullRequest } : {}) }, position);
}
