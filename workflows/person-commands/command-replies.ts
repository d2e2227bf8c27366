import type { CommandDecision } from './command-types';

/**
 * The ❌ replies to invalid commands. They echo what the person wrote so they can see which command failed; the
 * echo is one line, at most ECHO_LIMIT characters, and cannot break out of its code span.
 */

export const ECHO_LIMIT = 200;
/** Names taken from user text inside a sentence (a verb, a key) are shorter still. */
const NAME_LIMIT = 40;

function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** The first line of a command as it may appear in a reply. */
export function echo(text: string): string {
  const firstLine = text.trim().split(/\r?\n/, 1)[0] ?? '';
  return truncate(firstLine.replace(/`/g, "'"), ECHO_LIMIT);
}

/** A word from user text quoted inside a reply sentence. */
export function quoteName(text: string): string {
  return `"${truncate(text.replace(/[`"\r\n]/g, ''), NAME_LIMIT)}"`;
}

/**
 * An invalid command: `problem` says what is wrong, `hint` what would work. Both end up in the reply; the reason on
 * the timeline carries the problem only.
 */
export function invalidCommand(written: string, problem: string, hint: string, blocks = false): CommandDecision {
  return { kind: 'invalid', reason: `invalid command: ${problem}`, reply: `❌ \`${echo(written)}\`: ${problem}. ${hint}`, blocks };
}
