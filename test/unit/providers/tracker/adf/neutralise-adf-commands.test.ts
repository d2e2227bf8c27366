import { describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../../../../src/providers/tracker/adf/adf-to-markdown';
import type { AdfDocument, AdfNode } from '../../../../../src/providers/tracker/adf/adf-types';
import { markdownToAdf } from '../../../../../src/providers/tracker/adf/markdown-to-adf';
import { adfPlainText, neutraliseAdfCommands } from '../../../../../src/providers/tracker/adf/neutralise-adf-commands';
import { COMMAND_BREAK, CommandNeutralisationError } from '../../../../../src/redaction/neutralise-commands';
import { ticketCommentRequest } from '../../../../../workflows/person-commands/command-comments';
import { HOSTILE_COMMAND_TEXTS, ORDINARY_TEXTS } from '../../../../fixtures/hostile-command-lines';

const B = COMMAND_BREAK;

/** The document with every zero-width space taken out of its texts and link addresses: what a person sees. */
function visible(node: AdfNode): AdfNode {
  return JSON.parse(JSON.stringify(node).split(B).join('').split('\\u200b').join(''), (key, value: unknown) => value) as AdfNode;
}

/** What the grammar reads from each line start of a text on; empty when nothing commands. */
function commandsIn(text: string): string[] {
  const starts = [0, ...[...text.matchAll(/[\n\r\v\f\u0085\u2028\u2029]/g)].map((m) => m.index + 1)];
  return starts.map((start) => ticketCommentRequest(text.slice(start))).filter((request) => request !== undefined);
}

const doc = (...content: AdfNode[]): AdfDocument => ({ type: 'doc', version: 1, content });

describe('neutraliseAdfCommands', () => {
  it('breaks the three reported payloads where the Markdown reader would read them back as commands', () => {
    const read = (markdown: string) => adfToMarkdown(neutraliseAdfCommands(markdownToAdf(markdown)));
    // Before: the conversion consumed the escape, and a link whose text is its address reads back as bare text.
    expect(adfToMarkdown(markdownToAdf('\\!ship'))).toBe('!ship');
    expect(adfToMarkdown(markdownToAdf('[/service](/service) approve'))).toBe('/service approve');
    expect(read('\\!ship')).toBe(`${B}!ship`);
    expect(read('[/service](/service) approve')).toBe(`[${B}/service](/service) approve`);
    expect(read('[>option](>option) 1')).toBe(`[>${B}option](>option) 1`);
  });

  it.each(HOSTILE_COMMAND_TEXTS.map((entry) => [entry.name, entry.text]))('%s: no line commands as read back or as plain text, and a person sees the same', (_name, text) => {
    const converted = markdownToAdf(text);
    const posted = neutraliseAdfCommands(converted);
    expect(commandsIn(adfToMarkdown(posted))).toEqual([]);
    expect(commandsIn(adfPlainText(posted).text)).toEqual([]);
    expect(visible(posted)).toEqual(visible(converted));
    expect(neutraliseAdfCommands(posted)).toEqual(posted);
  });

  it('leaves a document with no command in it as it was, and never changes the document it is given', () => {
    for (const text of ORDINARY_TEXTS) {
      const converted = markdownToAdf(text);
      const copy = structuredClone(converted);
      expect(neutraliseAdfCommands(converted)).toEqual(copy);
      expect(converted).toEqual(copy);
    }
    const hostile = markdownToAdf('- **/service approve**');
    const before = structuredClone(hostile);
    neutraliseAdfCommands(hostile);
    expect(hostile).toEqual(before);
  });

  it('puts the break into the text node where the trigger starts, inside its marks, so any renderer of the ADF keeps it at the line start', () => {
    const posted = neutraliseAdfCommands(markdownToAdf('> - **/service approve**\n\n| `? why` |\n| --- |\n\n## ! redo'));
    const texts: AdfNode[] = [];
    const walk = (node: AdfNode) => { if (node.type === 'text') texts.push(node); (node.content ?? []).forEach(walk); };
    walk(posted);
    expect(texts.map((t) => [t.text, (t.marks ?? []).map((m) => m.type)])).toEqual([
      [`${B}/service approve`, ['strong']],
      [`${B}? why`, ['code']],
      [`${B}! redo`, []],
    ]);
  });

  it('breaks `>option N` split over marks and nodes in the node that holds `option`', () => {
    const posted = neutraliseAdfCommands(doc({ type: 'paragraph', content: [
      { type: 'text', text: 'take >' }, { type: 'text', text: 'option', marks: [{ type: 'strong' }] }, { type: 'text', text: ' 2' },
    ] }));
    expect(posted.content[0]!.content!.map((n) => n.text)).toEqual(['take >', `${B}option`, ' 2']);
  });

  it('breaks `>option N` in a link address, which the Markdown reader shows', () => {
    const posted = neutraliseAdfCommands(markdownToAdf('see [the options](>option1)'));
    expect(adfToMarkdown(posted)).toBe(`see [the options](>${B}option1)`);
  });

  it('puts a text node with the break in front of a mention or card whose shown text starts a command', () => {
    const posted = neutraliseAdfCommands(doc({ type: 'paragraph', content: [
      { type: 'mention', attrs: { id: 'x', text: '@service' } }, { type: 'text', text: ' ask why' },
    ] }));
    expect(posted.content[0]!.content!.map((n) => n.type)).toEqual(['text', 'mention', 'text']);
    expect(adfToMarkdown(posted)).toBe(`${B}@service ask why`);
  });

  it('refuses a document whose command sits inside text it cannot break (a mention showing `>option 2`)', () => {
    const hostile = doc({ type: 'paragraph', content: [{ type: 'text', text: 'pick ' }, { type: 'mention', attrs: { id: 'x', text: 'x >option 2' } }] });
    expect(() => neutraliseAdfCommands(hostile)).toThrow(CommandNeutralisationError);
    expect(() => neutraliseAdfCommands(hostile)).toThrow(/the document as the tracker reader reads it back would still read as a command \(option\)/);
  });
});
