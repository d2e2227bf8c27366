import { commentStartRequest, ticketCommentRequest } from '../../workflows/person-commands/command-comments';
import type { EffectOperation } from '../../workflows/effects/effect-types';

/**
 * Text the service posts (much of it written by a model, which read hostile ticket, review and comment text) must
 * never read as a command when it comes back as a delivery. The loop guard drops the service's own comments; this is
 * the defence behind it, for the day a comment gets past the guard (a changed account, a lost marker).
 *
 * The comment grammar (workflows/person-commands/command-comments.ts) reads `/service <verb>`, `?`, `@service ask` and `!`
 * where a comment starts (after what String.prototype.trimStart removes), and `>option N` (or `&gt;option N`)
 * anywhere. So a zero-width space (U+200B) goes in front of the trigger wherever a line start reads as a command by
 * that grammar's own predicate, and between `>` and `option N` everywhere: the text renders as before, and the grammar
 * no longer sees a command, since U+200B is neither whitespace to trim nor part of a trigger (U+FEFF would not do:
 * trimStart removes it).
 *
 * This works on the text as its reader will read it: GitHub and GitLab return a body as posted, so the Markdown is
 * that text; Jira returns the ADF the Markdown became, so src/providers/tracker/adf/neutralise-adf-commands.ts applies
 * the same breaks to the ADF, after the conversion has consumed escapes and links. Idempotent: a neutralised text is
 * left as it is. What comes out is checked with the grammar itself; text that would still command is refused.
 */

export const COMMAND_BREAK = '\u200B';

/**
 * Where a line ends for some reader: the grammar's own (`\n`, `\r`, U+2028, U+2029) and what a renderer may break a
 * line at (vertical tab, form feed, next line U+0085). More line starts only mean more breaks, never fewer.
 */
const LINE_END = /[\n\r\v\f\u0085\u2028\u2029]/g;
const END_CHARACTER = /[\n\r\v\f\u0085\u2028\u2029]/;
/** Whitespace that trimStart removes and that does not end a line. */
const LEADING_SPACE = /[^\S\n\r\v\f\u2028\u2029]*/y;
/**
 * The grammar's `>option N` (and `&gt;option N`), N also on a later line: its `\s*` spans line ends. A hint such as
 * "comment `>option N`" names no number and is left as written, so a person who copies it gets a working command.
 */
const OPTION_MARK = /(?:>|&gt;)(?=option\s*\d)/gi;

/** Thrown when a text would still read as a command after neutralising: the text is not posted. */
export class CommandNeutralisationError extends Error {
  constructor(readonly where: string, readonly request: string, readonly line?: number) {
    const found = line === undefined ? request : `${request} from line ${line}`;
    super(`${where} would still read as a command (${found}) after its triggers were broken, so it was not posted; the neutraliser ` +
      '(src/redaction/neutralise-commands.ts) no longer matches the comment grammar (workflows/person-commands/command-comments.ts): make it break that trigger');
    this.name = 'CommandNeutralisationError';
  }
}

/** The offset of the first character of every line that is not blank, after its leading whitespace. */
function lineBeginnings(text: string): number[] {
  const starts = [0, ...[...text.matchAll(LINE_END)].map((match) => match.index + 1)];
  return starts.map((start) => {
    LEADING_SPACE.lastIndex = start;
    LEADING_SPACE.exec(text);
    return LEADING_SPACE.lastIndex;
  // A blank line begins nowhere: trimStart would read on into the next line, which is judged on its own.
  }).filter((first) => first < text.length && !END_CHARACTER.test(text[first]!));
}

/**
 * The offsets of `text` in front of which a break goes: the beginning of every line from which the grammar reads a
 * command, and the `o` of every `>option N`. Ascending, no repeats.
 */
export function commandBreaks(text: string): number[] {
  const breaks = new Set([...lineBeginnings(text).filter((first) => commentStartRequest(text.slice(first))), ...optionBreaks(text)]);
  return [...breaks].sort((a, b) => a - b);
}

/** The offsets of the `o` of every `>option N` and `&gt;option N` in `text`, ascending. */
export function optionBreaks(text: string): number[] {
  return [...text.matchAll(OPTION_MARK)].map((match) => match.index + match[0].length);
}

/** `text` with a break in front of each offset. */
export function insertBreaks(text: string, offsets: readonly number[]): string {
  let out = '';
  let from = 0;
  for (const offset of offsets) {
    out += text.slice(from, offset) + COMMAND_BREAK;
    from = offset;
  }
  return out + text.slice(from);
}

/**
 * Throws CommandNeutralisationError when the comment grammar reads a command in `text`: as a whole comment, or from
 * any line start on. `where` names the text for the operator (never its content, which may be hostile).
 */
export function assertNoCommand(text: string, where: string): void {
  for (const first of lineBeginnings(text)) {
    const request = commentStartRequest(text.slice(first));
    if (request) throw new CommandNeutralisationError(where, request, 1 + [...text.slice(0, first).matchAll(LINE_END)].length);
  }
  const request = ticketCommentRequest(text);
  if (request) throw new CommandNeutralisationError(where, request);
}

export function neutraliseCommands(text: string, where = 'the posted text'): string {
  const neutralised = insertBreaks(text, commandBreaks(text));
  assertNoCommand(neutralised, where);
  return neutralised;
}

/**
 * The same for every text an effect posts to a person-readable place (comments, descriptions, reviews and their
 * line comments, replies). Titles and summaries are one line that no parser reads as a command, and are kept as
 * written; so are labels, branches and ids.
 */
export function neutraliseEffectText(operation: EffectOperation): EffectOperation {
  const where = `the text of ${operation.kind}`;
  switch (operation.kind) {
    case 'tracker.comment':
    case 'scmhost.pr_comment':
    case 'scmhost.review_reply':
      return { ...operation, body: neutraliseCommands(operation.body, where) };
    case 'scmhost.open_pr':
      return { ...operation, body: neutraliseCommands(operation.body, where) };
    case 'scmhost.update_pr':
      return operation.body === undefined ? operation : { ...operation, body: neutraliseCommands(operation.body, where) };
    case 'scmhost.pr_review':
      return {
        ...operation,
        body: neutraliseCommands(operation.body, where),
        ...(operation.comments
          ? { comments: operation.comments.map((comment) => ({ ...comment, body: neutraliseCommands(comment.body, `a line comment of ${operation.kind}`) })) }
          : {}),
      };
    case 'tracker.create_issue':
      return operation.description === undefined ? operation : { ...operation, description: neutraliseCommands(operation.description, where) };
    case 'tracker.pull_request_link':
      return { ...operation, text: neutraliseCommands(operation.text, where) };
    case 'tracker.labels':
    case 'tracker.transition':
    case 'git.push':
      return operation;
  }
}
