import { describe, expect, it } from 'vitest';
import { adfToMarkdown } from '../../../../src/providers/tracker/adf/adf-to-markdown';
import { markdownToAdf } from '../../../../src/providers/tracker/adf/markdown-to-adf';

const PRD = `# Product requirements: checkout

## Problem

Customers **abandon** carts when _payment_ fails. See [the dashboard](https://dash.example.com/x) and \`checkout.ts\`.

## Requirements

1. Retry a failed payment once
2. Show a clear error
   - with the provider's code
   - and a ~~support~~ help link
3. Keep the cart

> Note: PCI scope must not grow.

\`\`\`ts
const retry = 1;
if (retry > 0) pay();
\`\`\`

| Requirement | Priority |
| --- | --- |
| Retry | high |
| Error text | medium |

---

Done.`;

describe('ADF <-> Markdown', () => {
  it('round-trips a PRD with headings, lists, quotes, code, tables and marks', () => {
    expect(adfToMarkdown(markdownToAdf(PRD))).toBe(PRD);
  });

  it('produces the ADF nodes Jira expects', () => {
    const doc = markdownToAdf('## Title\n\nSome **bold** and `code`.\n\n- a\n- b');
    expect(doc).toEqual({
      type: 'doc',
      version: 1,
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Title' }] },
        { type: 'paragraph', content: [
          { type: 'text', text: 'Some ' },
          { type: 'text', text: 'bold', marks: [{ type: 'strong' }] },
          { type: 'text', text: ' and ' },
          { type: 'text', text: 'code', marks: [{ type: 'code' }] },
          { type: 'text', text: '.' },
        ] },
        { type: 'bulletList', content: [
          { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'a' }] }] },
          { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'b' }] }] },
        ] },
      ],
    });
  });

  it('keeps commands and questions in comments readable', () => {
    expect(adfToMarkdown(markdownToAdf('/service update 2 summary="New name" repo=acme/api'))).toBe('/service update 2 summary="New name" repo=acme/api');
    expect(adfToMarkdown(markdownToAdf('? why *this* approach'))).toBe('? why _this_ approach');
    expect(adfToMarkdown(markdownToAdf('>option 2'))).toBe('>option 2');
    expect(markdownToAdf('>option 2').content[0]?.type).toBe('paragraph');
  });

  it('renders what people write in the Jira editor: mentions, hard breaks, emoji, cards, panels', () => {
    const doc = {
      type: 'doc', version: 1, content: [
        { type: 'paragraph', content: [
          { type: 'mention', attrs: { id: 'abc', text: '@Pat' } },
          { type: 'text', text: ' please look' },
          { type: 'hardBreak' },
          { type: 'emoji', attrs: { shortName: ':tada:', text: '🎉' } },
          { type: 'text', text: ' ' },
          { type: 'inlineCard', attrs: { url: 'https://github.com/acme/api/pull/1' } },
        ] },
        { type: 'panel', attrs: { panelType: 'info' }, content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Heads up' }] }] },
        { type: 'mediaSingle', content: [{ type: 'media', attrs: { id: 'x' } }] },
      ],
    };
    expect(adfToMarkdown(doc)).toBe('@Pat please look\n🎉 https://github.com/acme/api/pull/1\n\n> Heads up\n\n[attachment]');
  });

  it('tolerates plain strings and empty input', () => {
    expect(adfToMarkdown('plain')).toBe('plain');
    expect(adfToMarkdown(null)).toBe('');
    expect(markdownToAdf('')).toEqual({ type: 'doc', version: 1, content: [] });
  });
});
