import { describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../../../../src/providers/tracker/adf/adf-to-markdown';
import { markdownToAdf } from '../../../../../src/providers/tracker/adf/markdown-to-adf';
import { trackerRichTextToMarkdown } from '../../../../../src/providers/tracker/rich-text-to-markdown';
import { jiraWikiToAdf } from '../../../../../src/providers/tracker/wiki/jira-wiki-to-adf';
import { commentObservation } from '../../../../../src/ingress/tracker/tracker-observations';
import { adfToJiraWiki } from '../../../../../src/sandbox/tracker-simulator/adf-to-jira-wiki';
import { HOSTILE_COMMAND_TEXTS, ORDINARY_TEXTS } from '../../../../fixtures/hostile-command-lines';

// Issue 42 point 2: one comment, one fact, whichever way it arrives. Jira Cloud's webhooks carry a comment as wiki
// markup, its REST v3 (the poller) as ADF; both readings must give the same text, so the same command and the same
// fingerprint, or the ledger takes the second arrival for a contradicting fact (`conflict`).

/** What people write in Jira comments: every command form, marks, code, lists, links, quotes, tables, escapes. */
const COMMENTS: readonly string[] = [
  '/service approve',
  '/service reject the scope is too wide',
  '? why two epics',
  '@service ask: which module owns billing?',
  '! fewer epics, please',
  '! 2: split the second epic',
  '>option 2',
  'I would go with >option 3 because it is smaller.',
  'Looks good. **Ship it** when _CI_ is green, see `npm test` and ~~the old plan~~.',
  'Steps:\n\n1. build\n2. test\n   - unit\n   - integration\n3. deploy',
  '- one\n- two\n  1. nested first\n  2. nested second',
  'See [the runbook](https://wiki.example.com/runbook) and https://example.com/plain',
  '## Review\n\nThe *spec* reads well.',
  '> quoted reviewer text\n\n/service approve',
  '```python\nprint("a*b_c {x} [y] | !z!")\n```',
  '| Option | Risk |\n| --- | --- |\n| 1 | low |\n| 2 | high |',
  'Escapes: 2*3*4, snake_case_name, a-b-c, x+y+z, a^b, ~tilde~, {braces}, [brackets], !bang!, pipe | and ?? marks #hash',
  'A back\\slash, a \\* star after one, and C:\\path\\to\\file',
  'h1. not a heading, bq. not a quote',
  'first line  \nsecond line after a hard break',
  '----\n\nafter a rule',
  'emoji 🎉 and accents: café, naïve, 日本語',
  '`{{code}}` stays code',
  'Trailing !',
];

const corpus = [...COMMENTS, ...HOSTILE_COMMAND_TEXTS.map((entry) => entry.text), ...ORDINARY_TEXTS];

describe('Jira wiki markup read as the same text as ADF', () => {
  it.each(corpus.map((text) => [JSON.stringify(text).slice(0, 60), text]))('%s', (_name, text) => {
    const adf = markdownToAdf(text);
    const fromRest = adfToMarkdown(adf);
    const wiki = adfToJiraWiki(adf);
    expect(typeof wiki).toBe('string');
    expect(trackerRichTextToMarkdown(wiki), `wiki: ${wiki}`).toBe(fromRest);
  });

  it('makes one observation of a comment, by webhook (wiki) or by poller (ADF): same identity, same fingerprint', () => {
    const issue = { id: '10001', key: 'SBX-1' };
    for (const text of corpus) {
      const adf = markdownToAdf(text);
      const facts = (body: string) => ({ id: '20001', body, authorIds: ['tracker:acc-1'], created: '2026-12-06T01:00:00.000+0000', updated: '2026-12-06T01:00:00.000+0000' });
      const byWebhook = commentObservation(issue, facts(trackerRichTextToMarkdown(adfToJiraWiki(adf))), { source: 'webhook', receivedAt: new Date(0) });
      const byPoller = commentObservation(issue, facts(trackerRichTextToMarkdown(adf)), { source: 'poller', receivedAt: new Date(0) });
      expect([byWebhook.delivery_identity, byWebhook.fingerprint]).toEqual([byPoller.delivery_identity, byPoller.fingerprint]);
    }
  });
});

describe('jiraWikiToAdf on wiki markup people and Jira write', () => {
  const read = (wiki: string) => trackerRichTextToMarkdown(wiki);

  it('reads the marks, code, links and headings', () => {
    expect(read('*bold* and _it_ with {{code}}, -gone- and +under+')).toBe('**bold** and _it_ with `code`, ~~gone~~ and under');
    expect(read('see [the docs|https://example.com/d] or [https://example.com]')).toBe('see [the docs](https://example.com/d) or https://example.com');
    expect(read('h2. Plan\n\nText')).toBe('## Plan\n\nText');
    expect(read('a 2*3 b and snake_case stay text')).toBe('a 2*3 b and snake_case stay text');
    // Brackets around something that is no address are text, as people type them: a prefix, a tag.
    expect(read('[svc-bot] PRD posted, [WIP] and [*bold*]')).toBe('[svc-bot] PRD posted, [WIP] and [**bold**]');
  });

  it('reads nested lists of either kind, code blocks, quotes and rules', () => {
    expect(read('* one\n** nested\n* two\n# first\n# second')).toBe('- one\n  - nested\n- two\n\n1. first\n2. second');
    expect(read('- dash bullet')).toBe('- dash bullet');
    expect(read('{code:java}\nint a = b * c;\n{code}')).toBe('```java\nint a = b * c;\n```');
    expect(read('{noformat}\n*raw*\n{noformat}')).toBe('```\n*raw*\n```');
    expect(read('{quote}\nquoted\n{quote}\n\n/service approve')).toBe('> quoted\n\n/service approve');
    expect(read('bq. a quote')).toBe('> a quote');
    expect(read('above\n\n----\n\nbelow')).toBe('above\n\n---\n\nbelow');
  });

  it('reads escapes, \\\\ line breaks and Windows line ends', () => {
    expect(read('\\!ship it')).toBe('!ship it');
    expect(read('line one\\\\line two')).toBe('line one\nline two');
    expect(read('para one\r\n\r\npara two\r\nsame para')).toBe('para one\n\npara two\nsame para');
    expect(read('C:\\path')).toBe('C:\\path');
  });

  it('says what the wiki form lost: a mention keeps only its account id, an image only its name', () => {
    const mention = jiraWikiToAdf('[~accountid:5b10a2844c20165700ede21g] please /service approve');
    expect(mention.lossy).toEqual(['mention']);
    expect(adfToMarkdown(mention.document)).toBe('@5b10a2844c20165700ede21g please /service approve');
    expect(jiraWikiToAdf('!screenshot.png|thumbnail!').lossy).toEqual(['attachment']);
    expect(jiraWikiToAdf('/service approve').lossy).toEqual([]);
  });
});
