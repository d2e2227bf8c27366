import { DRAFT_FIELD_NAMES, type DraftFieldName, type DraftFields } from './command-types';
import { quoteName } from './command-replies';

/**
 * Arguments of the draft commands: item ids and `key=value` pairs. Each parser returns the value or the problem and
 * a hint for the ❌ reply, never throws.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string; hint: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const problem = <T>(what: string, hint: string): Parsed<T> => ({ ok: false, problem: what, hint });

/** "items: 1-4", "items: 1, 3, 4" or "the draft has no items": what a person can pick from. */
export function describeItems(ids: readonly number[]): string {
  if (ids.length === 0) return 'the draft has no items';
  const sorted = [...ids].sort((a, b) => a - b);
  const first = sorted[0]!;
  const last = sorted[sorted.length - 1]!;
  const contiguous = sorted.every((id, index) => id === first + index);
  return `items: ${contiguous && sorted.length > 1 ? `${first}-${last}` : sorted.join(', ')}`;
}

/** A draft item id: a positive integer among the ids of the draft shown at the gate. */
export function parseItemId(raw: string | undefined, ids: readonly number[], example: string): Parsed<number> {
  if (raw === undefined || raw === '') return problem('the draft item number is missing', `Example: \`${example}\`.`);
  if (!/^\d{1,9}$/.test(raw) || Number(raw) === 0) {
    return problem(`${quoteName(raw)} is not a draft item number`, `Items are numbered from 1 (${describeItems(ids)}).`);
  }
  const id = Number(raw);
  if (!ids.includes(id)) return problem(`there is no draft item ${id} (${describeItems(ids)})`, 'Use the numbers of the latest draft comment.');
  return ok(id);
}

/**
 * `key=value` pairs separated by whitespace (newlines too); values bare, 'single' or "double" quoted. Quoted values
 * may hold spaces and newlines; there are no escapes (quote with the other kind to include one).
 */
export function parseAssignments(text: string): Parsed<Array<[string, string]>> {
  const pairs: Array<[string, string]> = [];
  const hint = 'Write key=value pairs; quote values with spaces: summary="Export as CSV".';
  let index = 0;
  const skipSpace = () => {
    while (index < text.length && /\s/.test(text[index]!)) index += 1;
  };
  skipSpace();
  while (index < text.length) {
    const key = /^[A-Za-z_][A-Za-z0-9_-]*=/.exec(text.slice(index))?.[0].slice(0, -1);
    // Most often the second word of an unquoted value: summary=Export as CSV.
    if (!key) return problem(`expected key=value at ${quoteName(text.slice(index).split(/\s/, 1)[0]!)}`, hint);
    index += key.length + 1;
    const quote = text[index];
    let value: string;
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, index + 1);
      if (close < 0) return problem(`the value of ${quoteName(key)} has no closing ${quote}`, hint);
      value = text.slice(index + 1, close);
      index = close + 1;
      if (index < text.length && !/\s/.test(text[index]!)) return problem(`unexpected text after the quoted value of ${quoteName(key)}`, hint);
    } else {
      const bare = /^\S*/.exec(text.slice(index))![0];
      if (bare === '') return problem(`${quoteName(key)} has no value`, `Quote an empty value: ${key}="". ${hint}`);
      value = bare;
      index += bare.length;
    }
    pairs.push([key, value]);
    skipSpace();
  }
  return ok(pairs);
}

/** The fields of `/service update` and `/service add`: known keys (case-insensitive), each at most once. */
export function parseDraftFields(text: string): Parsed<DraftFields> {
  const pairs = parseAssignments(text);
  if (!pairs.ok) return pairs;
  const known = `Fields: ${DRAFT_FIELD_NAMES.join(', ')}.`;
  if (pairs.value.length === 0) return problem('no fields given', `${known} Example: summary="Export as CSV".`);
  const fields: DraftFields = {};
  for (const [rawKey, value] of pairs.value) {
    const key = rawKey.toLowerCase();
    if (!(DRAFT_FIELD_NAMES as readonly string[]).includes(key)) return problem(`unknown field ${quoteName(rawKey)}`, known);
    const name = key as DraftFieldName;
    if (fields[name] !== undefined) return problem(`${name} is given twice`, 'Give each field once.');
    fields[name] = value;
  }
  // A draft item is found and shown by its summary; an empty one would leave an unnamed epic or task.
  if (fields.summary !== undefined && fields.summary.trim() === '') return problem('the summary is empty', 'Give the item a summary.');
  return ok(fields);
}
