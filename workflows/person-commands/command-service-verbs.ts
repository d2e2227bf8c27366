import { parseDraftFields, parseItemId } from './command-args';
import { whyNotMeaningful, type Trigger, type WrittenOn } from './command-meaning';
import { invalidCommand, quoteName } from './command-replies';
import { nearestWord } from './nearest-word';
import type { Command, CommandDecision, CommandPosition, PullRequestTarget } from './command-types';
import { TRIGGER, TRIGGER_LABEL } from '../vocabulary/command-words';

/**
 * `/service <verb> ...` comments. The verb is case-insensitive and ends the first word; most verbs read their
 * arguments from the first line only, so a person may add a sentence below. `update` and `add` read to the end of
 * the comment, because a quoted description may span lines.
 *
 * Order of judgement: an unknown verb is invalid and blocks (SPEC 3.2 "unrecognized command"); a known verb where it
 * means nothing is ignored (SPEC 2.4); a known verb with bad arguments is invalid with a ❌ reply and does not block.
 */

const PREFIX = /^\/service(?=\s|$)/i;

export interface WrittenCommand {
  /** The comment from `/service` on (leading whitespace already removed). */
  text: string;
  written_on: WrittenOn;
  /** The pull request the comment was written on. */
  pull_request?: PullRequestTarget;
}

interface VerbInput {
  written: WrittenCommand;
  position: CommandPosition;
  /** Words after the verb on the first line. */
  words: string[];
  /** Text after the verb on the first line, trimmed. */
  line: string;
  /** Text after the verb to the end of the comment. */
  rest: string;
}

interface Verb {
  /** The trigger id the pinned definition's node must accept. */
  trigger: Trigger;
  /** How people write it (in the list of known commands and in replies). */
  usage: string;
  decide(input: VerbInput): CommandDecision;
}

const command = (value: Command): CommandDecision => ({ kind: 'command', command: value });

function noArguments(input: VerbInput, usage: string, hint: string, value: Command): CommandDecision {
  if (input.words.length > 0) return invalidCommand(input.written.text, `\`${usage}\` takes no arguments`, hint);
  return command(value);
}

function draftIds(position: CommandPosition): readonly number[] {
  return position.draft_item_ids ?? [];
}

/** `/service remove <n>` and `/service exclude <n>`: exactly one item number. */
function singleItem(type: 'draft_remove' | 'draft_exclude', usage: string) {
  return (input: VerbInput): CommandDecision => {
    const id = parseItemId(input.words[0], draftIds(input.position), usage.replace('<n>', '2'));
    if (!id.ok) return invalidCommand(input.written.text, id.problem, id.hint);
    if (input.words.length > 1) return invalidCommand(input.written.text, `\`${usage}\` takes one item number`, `Example: \`${usage.replace('<n>', '2')}\`; one comment per item.`);
    return command({ type, item_id: id.value });
  };
}

/** skip-gate and unskip-gate: the rest of the line names the check; surrounding quotes are dropped. */
function checkName(type: 'skip_gate' | 'unskip_gate', usage: string) {
  return (input: VerbInput): CommandDecision => {
    const check = input.line.replace(/^(["'])(.*)\1$/, '$2').trim();
    if (check === '') return invalidCommand(input.written.text, 'the check name is missing', `Example: \`${usage.replace('<check>', 'lint')}\` matches every check whose name contains "lint".`);
    return command({ type, check, match: check.toLowerCase() });
  };
}

export const VERBS: Readonly<Record<string, Verb>> = {
  approve: {
    trigger: TRIGGER.approve,
    usage: TRIGGER_LABEL[TRIGGER.approve],
    decide: (input) => noArguments(input, TRIGGER_LABEL[TRIGGER.approve], 'It approves the whole draft; use `/service exclude <n>` first to leave an item out.',
      { type: 'approve', gate: input.position.current_node, via: 'comment' }),
  },
  remove: { trigger: TRIGGER.remove, usage: '/service remove <n>', decide: singleItem('draft_remove', '/service remove <n>') },
  exclude: { trigger: TRIGGER.exclude, usage: '/service exclude <n>', decide: singleItem('draft_exclude', '/service exclude <n>') },
  update: {
    trigger: TRIGGER.update,
    usage: '/service update <n> key=value ...',
    decide: (input) => {
      const id = parseItemId(input.words[0], draftIds(input.position), '/service update 2 summary="Export as CSV"');
      if (!id.ok) return invalidCommand(input.written.text, id.problem, id.hint);
      const fields = parseDraftFields(input.rest.trimStart().slice(input.words[0]!.length));
      if (!fields.ok) return invalidCommand(input.written.text, fields.problem, fields.hint);
      return command({ type: 'draft_update', item_id: id.value, fields: fields.value });
    },
  },
  add: {
    trigger: TRIGGER.add,
    usage: '/service add key=value ...',
    decide: (input) => {
      const fields = parseDraftFields(input.rest);
      if (!fields.ok) return invalidCommand(input.written.text, fields.problem, fields.hint);
      const { summary } = fields.value;
      if (summary === undefined) return invalidCommand(input.written.text, 'a new draft item needs a summary', 'Example: `/service add summary="Export as CSV" repo=acme/api`.');
      return command({ type: 'draft_add', fields: { ...fields.value, summary } });
    },
  },
  'skip-gate': { trigger: TRIGGER.skipGate, usage: '/service skip-gate <check>', decide: checkName('skip_gate', '/service skip-gate <check>') },
  'unskip-gate': { trigger: TRIGGER.unskipGate, usage: '/service unskip-gate <check>', decide: checkName('unskip_gate', '/service unskip-gate <check>') },
  stop: {
    trigger: TRIGGER.stopCommand,
    usage: TRIGGER_LABEL[TRIGGER.stopCommand],
    decide: (input) => noArguments(input, TRIGGER_LABEL[TRIGGER.stopCommand], 'It stops the ticket where it stands; add service:retry to resume.', { type: 'stop', via: 'comment' }),
  },
  rebase: {
    trigger: TRIGGER.rebase,
    usage: TRIGGER_LABEL[TRIGGER.rebase],
    decide: (input) => noArguments(input, TRIGGER_LABEL[TRIGGER.rebase], 'It rebases the pull request it is written on (on the ticket: all of them).',
      input.written.pull_request ? { type: 'rebase', pull_request: input.written.pull_request } : { type: 'rebase' }),
  },
};

const KNOWN = `Known commands: ${Object.values(VERBS).map((verb) => `\`${verb.usage}\``).join(', ')}.`;

export function isServiceCommand(text: string): boolean {
  return PREFIX.test(text);
}

/**
 * The verb and its words on the first line of a `/service <verb>` comment: the one reading of it, for the command
 * boundary (`decideServiceCommand`), the kill switch (`isStopComment`) and the answers (`serviceVerbOf`). `verb` is
 * lower case, `written` as written; `afterPrefix` is the text after `/service`. Undefined when the comment is no
 * `/service` command or names no verb.
 */
function firstLineVerb(text: string): { verb: string; written: string; words: string[]; afterPrefix: string } | undefined {
  const body = text.trimStart();
  if (!PREFIX.test(body)) return undefined;
  const afterPrefix = body.replace(PREFIX, '');
  const [written, ...words] = afterPrefix.split(/\r?\n/, 1)[0]!.trim().split(/\s+/).filter(Boolean);
  return written === undefined ? undefined : { verb: written.toLowerCase(), written, words, afterPrefix };
}

/**
 * Whether a comment is `/service stop` as the parser takes it (the verb alone on its first line). The kill switch
 * asks this while a station runs, before the command boundary judges the comment where the ticket stands.
 */
export function isStopComment(text: string): boolean {
  const written = firstLineVerb(text);
  return written?.verb === 'stop' && written.words.length === 0;
}

/** The verb of a `/service <verb>` comment as people know it (`/service approve`), or undefined when there is none. */
export function serviceVerbOf(text: string): string | undefined {
  const written = firstLineVerb(text);
  return written ? `/service ${written.verb}` : undefined;
}

export function decideServiceCommand(written: WrittenCommand, position: CommandPosition): CommandDecision {
  const first = firstLineVerb(written.text);
  if (first === undefined) return invalidCommand(written.text, 'no command after /service', KNOWN, true);
  const { written: rawVerb, words, afterPrefix } = first;
  // `/service stop` is a verb only where the kill switch is on (histories from before it replay as they ran).
  const known = Object.hasOwn(VERBS, rawVerb.toLowerCase()) && (rawVerb.toLowerCase() !== 'stop' || position.kill_switch === true);
  const verb = known ? VERBS[rawVerb.toLowerCase()] : undefined;
  if (!verb) {
    const available = Object.keys(VERBS).filter((name) => name !== 'stop' || position.kill_switch === true);
    const meant = nearestWord(rawVerb, available);
    return invalidCommand(written.text, `unknown command ${quoteName(rawVerb)}`, meant ? `Did you mean \`/service ${meant}\`? ${KNOWN}` : KNOWN, true);
  }

  const notMeaningful = whyNotMeaningful(verb.trigger, position, written.written_on);
  if (notMeaningful) return { kind: 'ignore', reason: notMeaningful };

  const afterVerb = afterPrefix.slice(afterPrefix.indexOf(rawVerb) + rawVerb.length);
  const line = afterVerb.split(/\r?\n/, 1)[0]!.trim();
  return verb.decide({ written, position, words, line, rest: afterVerb });
}
