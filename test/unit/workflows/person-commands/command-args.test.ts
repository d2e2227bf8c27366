import { describe, expect, it } from 'vitest';
import { describeItems, parseAssignments, parseDraftFields, parseItemId } from '../../../../workflows/person-commands/command-args';
import { echo, ECHO_LIMIT, invalidCommand } from '../../../../workflows/person-commands/command-replies';

describe('parseAssignments', () => {
  it.each([
    ['summary=CSV', [['summary', 'CSV']]],
    [`summary="Export as CSV" repo=acme/api description='two words'`, [['summary', 'Export as CSV'], ['repo', 'acme/api'], ['description', 'two words']]],
    [`  summary="it's fine"   `, [['summary', "it's fine"]]],
    [`description='say "hi"'`, [['description', 'say "hi"']]],
    ['summary=don\'t', [['summary', "don't"]]],
    ['description=""', [['description', '']]],
    ['description="line one\nline two"\nrepo=acme/web', [['description', 'line one\nline two'], ['repo', 'acme/web']]],
    ['', []],
  ])('%j -> %j', (text, pairs) => {
    expect(parseAssignments(text)).toEqual({ ok: true, value: pairs });
  });

  it.each([
    ['summary', 'expected key=value at "summary"'],
    ['summary= repo=x', '"summary" has no value'],
    ['summary="open', 'the value of "summary" has no closing "'],
    [`summary='open`, `the value of "summary" has no closing '`],
    ['summary="a"b', 'unexpected text after the quoted value of "summary"'],
    ['=x', 'expected key=value at "=x"'],
    // Quotes are dropped from names echoed in a reply, so the reply cannot be broken by them.
    ['"summary"=x', 'expected key=value at "summary=x"'],
  ])('%j is malformed: %s', (text, problem) => {
    const parsed = parseAssignments(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toBe(problem);
  });
});

describe('parseDraftFields', () => {
  it('takes keys case-insensitively', () => {
    expect(parseDraftFields('Summary=A REPO=acme/api')).toEqual({ ok: true, value: { summary: 'A', repo: 'acme/api' } });
  });
  it.each([
    ['', 'no fields given'],
    ['title=x', 'unknown field "title"'],
    ['summary=a summary=b', 'summary is given twice'],
    ['summary=""', 'the summary is empty'],
    [`summary='  '`, 'the summary is empty'],
  ])('%j is refused: %s', (text, problem) => {
    const parsed = parseDraftFields(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toBe(problem);
  });
});

describe('parseItemId', () => {
  it.each([
    ['1', 1],
    ['4', 4],
    ['04', 4],
  ])('%j is item %d', (raw, id) => {
    expect(parseItemId(raw, [1, 2, 3, 4], '/service remove 2')).toEqual({ ok: true, value: id });
  });
  it.each([
    [undefined, 'the draft item number is missing'],
    ['0', '"0" is not a draft item number'],
    ['-1', '"-1" is not a draft item number'],
    ['1.5', '"1.5" is not a draft item number'],
    ['two', '"two" is not a draft item number'],
    ['12345678901', '"12345678901" is not a draft item number'],
    ['9', 'there is no draft item 9 (items: 1-4)'],
  ])('%j is refused: %s', (raw, problem) => {
    const parsed = parseItemId(raw, [1, 2, 3, 4], '/service remove 2');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toBe(problem);
  });
});

describe('describeItems', () => {
  it.each([
    [[], 'the draft has no items'],
    [[1], 'items: 1'],
    [[3, 1, 2], 'items: 1-3'],
    [[1, 2, 5], 'items: 1, 2, 5'],
  ])('%j -> %s', (ids, text) => {
    expect(describeItems(ids)).toBe(text);
  });
});

describe('replies', () => {
  it('echo keeps one line, at most ECHO_LIMIT characters, and no backticks', () => {
    expect(echo('  /service `x`\nsecond line')).toBe("/service 'x'");
    const long = `/service update 1 description="${'a'.repeat(500)}"`;
    expect(echo(long)).toHaveLength(ECHO_LIMIT + 1);
    expect(echo(long).endsWith('…')).toBe(true);
  });
  it('an invalid command starts its reply with ❌ and names the problem and the fix', () => {
    expect(invalidCommand('/service remove 9', 'there is no draft item 9 (items: 1-4)', 'Use the numbers of the latest draft comment.')).toEqual({
      kind: 'invalid',
      reason: 'invalid command: there is no draft item 9 (items: 1-4)',
      reply: '❌ `/service remove 9`: there is no draft item 9 (items: 1-4). Use the numbers of the latest draft comment.',
      blocks: false,
    });
  });
});
