import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { neutraliseCommands } from '../../../../src/redaction/neutralise-commands';
import { TRIGGER_OUTCOME } from '../../../../workflows/built-in-definitions/catalogue';
import { ticketCommentRequest } from '../../../../workflows/person-commands/command-comments';
import { MEANING } from '../../../../workflows/person-commands/command-meaning';
import { serviceVerbOf, VERBS } from '../../../../workflows/person-commands/command-service-verbs';
import { ASK_MENTION, FEEDBACK_MARK, OPTION_WORD, QUESTION_MARK, SERVICE_COMMAND_PREFIX, SERVICE_VERBS, TRIGGER, TRIGGER_LABEL } from '../../../../workflows/vocabulary/command-words';
import * as labels from '../../../../workflows/vocabulary/labels';

const root = join(__dirname, '../../../..');

function productFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    // The simulators stand for the outside world (a person writes these words there); the vocabulary defines them.
    if (path === 'src/sandbox' || path === 'workflows/vocabulary') continue;
    if (entry.isDirectory()) productFiles(path, out);
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Quoted string literals of code lines (doc comments and line comments are prose and may name a label). */
function literalsOf(text: string): Array<{ line: number; value: string }> {
  const found: Array<{ line: number; value: string }> = [];
  text.split('\n').forEach((line, index) => {
    const code = line.trimStart();
    if (code.startsWith('*') || code.startsWith('//') || code.startsWith('/*')) return;
    for (const match of line.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)) found.push({ line: index + 1, value: match[1] ?? match[2]! });
  });
  return found;
}

describe('one vocabulary: labels, command words and triggers are defined once', () => {
  const labelWords = Object.values(labels).flatMap((value) => (typeof value === 'string' ? [value] : Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : [])) as string[];
  // Triggers by label: the prose people read. Their ids (approve, question, push, ...) are ordinary words in code.
  const words = new Set([...labelWords, ...Object.values(TRIGGER_LABEL)]);

  it('spells no label, label prefix or trigger out in src/, activities/ or workflows/ outside workflows/vocabulary', () => {
    const files = ['src', 'activities', 'workflows'].flatMap((dir) => productFiles(dir));
    expect(files.length).toBeGreaterThan(300);
    const spelled = files.flatMap((file) => literalsOf(readFileSync(join(root, file), 'utf8'))
      .filter(({ value }) => words.has(value))
      .map(({ line, value }) => `${relative(root, join(root, file))}:${line} '${value}'`));
    expect(spelled).toEqual([]);
  });

  it('finds a label spelled out where one is (the scan itself works)', () => {
    expect(literalsOf("const x = 'service:yolo'; // 'service:managed'\n * 'service:retry'").map((l) => l.value)).toEqual(['service:yolo', 'service:managed']);
    expect(words.has('service:yolo') && words.has('/service rebase') && words.has('repo:')).toBe(true);
  });

  it('has every `/service` verb known to the command parser, and no other', () => {
    expect(Object.keys(VERBS).sort()).toEqual([...SERVICE_VERBS].sort());
    for (const verb of SERVICE_VERBS) {
      expect(serviceVerbOf(`${SERVICE_COMMAND_PREFIX} ${verb}`)).toBe(`${SERVICE_COMMAND_PREFIX} ${verb}`);
      expect(TRIGGER_LABEL[VERBS[verb]!.trigger]).toBe(`${SERVICE_COMMAND_PREFIX} ${verb}`);
    }
  });

  it('reads every comment word as the grammar says, and the neutraliser breaks every one of them', () => {
    const written = {
      [`${QUESTION_MARK} why two epics`]: 'question',
      [`${ASK_MENTION} why two epics`]: 'question',
      [`${FEEDBACK_MARK} fewer epics`]: 'feedback',
      [`take ${OPTION_WORD} 2`]: 'option',
      ...Object.fromEntries(SERVICE_VERBS.map((verb) => [`${SERVICE_COMMAND_PREFIX} ${verb}`, 'service_command'])),
    };
    for (const [comment, request] of Object.entries(written)) {
      expect(ticketCommentRequest(comment), comment).toBe(request);
      expect(ticketCommentRequest(neutraliseCommands(comment)), `neutralised: ${comment}`).toBeUndefined();
    }
  });

  it('gives every trigger a meaning and an outcome, and the tables name no trigger the vocabulary lacks', () => {
    const triggers = Object.values(TRIGGER).sort();
    expect(Object.keys(MEANING).sort()).toEqual(triggers);
    expect(Object.keys(TRIGGER_OUTCOME).sort()).toEqual([...triggers].filter((t) => t !== TRIGGER.stopLabel && t !== TRIGGER.stopCommand).sort());
  });
});
