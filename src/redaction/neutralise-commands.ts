import type { EffectOperation } from '../../workflows/effects/effect-types';

/**
 * Text the service posts (much of it written by a model, which read hostile ticket, review and comment text) must
 * never read as a command when it comes back as a delivery. The loop guard drops the service's own comments; this is
 * the defence behind it, for the day a comment gets past the guard (a changed account, a lost marker).
 *
 * The command parser (workflows/commands/command-comments.ts, command-service-verbs.ts) reads, at the start of a comment after
 * leading whitespace (what String.prototype.trimStart removes, the same set as the regex `\s`): `/service <verb>`,
 * `?` and `@service ask` (questions), `!` (feedback; `![` is an image); and `>option N` (or `&gt;option N`) anywhere
 * on a ticket. So every line start that would read as one of the first, and every `>option N`, gets a zero-width
 * space in front of the trigger (after the `>` for `>option`): the text renders as before on GitHub, GitLab and in
 * Jira, and the parser no longer sees a command, since U+200B is neither whitespace to trim nor part of a trigger.
 * Idempotent: a neutralised text is left as it is.
 */

export const COMMAND_BREAK = '\u200B';

/**
 * A line start, after the whitespace of that line, that the comment parser would read as a command. Leading blank
 * lines are lines of their own, so each line start is matched once (`\r\n` too).
 */
const LINE_COMMAND = /^([^\S\r\n\u2028\u2029]*)(?=\/service\b|\?|@service\s+ask\b|!(?!\[))/gim;
/** `>option N` counts anywhere in a ticket comment. */
const OPTION = /(>|&gt;)(?=option\s*\d)/gi;

export function neutraliseCommands(text: string): string {
  return text.replace(LINE_COMMAND, `$1${COMMAND_BREAK}`).replace(OPTION, `$1${COMMAND_BREAK}`);
}

/**
 * The same for every text an effect posts to a person-readable place (comments, descriptions, reviews and their
 * line comments, replies). Titles and summaries are one line that no parser reads as a command, and are kept as
 * written; so are labels, branches and ids.
 */
export function neutraliseEffectText(operation: EffectOperation): EffectOperation {
  switch (operation.kind) {
    case 'tracker.comment':
    case 'scmhost.pr_comment':
    case 'scmhost.review_reply':
      return { ...operation, body: neutraliseCommands(operation.body) };
    case 'scmhost.open_pr':
      return { ...operation, body: neutraliseCommands(operation.body) };
    case 'scmhost.update_pr':
      return operation.body === undefined ? operation : { ...operation, body: neutraliseCommands(operation.body) };
    case 'scmhost.pr_review':
      return {
        ...operation,
        body: neutraliseCommands(operation.body),
        ...(operation.comments ? { comments: operation.comments.map((comment) => ({ ...comment, body: neutraliseCommands(comment.body) })) } : {}),
      };
    case 'tracker.create_issue':
      return operation.description === undefined ? operation : { ...operation, description: neutraliseCommands(operation.description) };
    case 'tracker.pull_request_link':
      return { ...operation, text: neutraliseCommands(operation.text) };
    case 'tracker.labels':
    case 'tracker.transition':
    case 'git.push':
      return operation;
  }
}
