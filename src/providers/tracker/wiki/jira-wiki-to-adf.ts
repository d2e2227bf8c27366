/**
 * Jira's wiki markup (its text formatting notation) read into ADF, so that a comment read from a webhook (Jira Cloud
 * sends `comment.body` as wiki markup) or from Jira Server/Data Center's REST v2 becomes the same text as the same
 * comment read as ADF from REST v3: both go through adfToMarkdown afterwards. The notation covered is what Jira writes
 * for rich text: headings, the inline marks, `{{code}}`, links and mentions, nested `*`/`#`/`-` lists, `{code}` and
 * `{noformat}` blocks, `{quote}`, `bq.`, `{panel}`, `----`, tables, `!images!`, `\\` line breaks and backslash
 * escapes.
 *
 * Some of ADF does not survive the wiki rendering: a mention keeps only its account id (not the name it showed), an
 * emoji only its short name, an attachment only its file name. Those are reported in `lossy`, so a reader that needs
 * them (a command naming someone) can read the comment through REST instead.
 */
import type { AdfDocument, AdfMark, AdfNode } from '../adf/adf-types';
import { mergeText } from '../adf/markdown-to-adf';

export type WikiLoss = 'mention' | 'attachment';

export interface WikiReading {
  document: AdfDocument;
  lossy: WikiLoss[];
}

const CODE_OPEN = /^\s*\{(code|noformat)(?::([^}|]*))?(?:\|[^}]*)?\}(.*)$/;
const QUOTE_OPEN = /^\s*\{(quote|panel)(?::[^}]*)?\}(.*)$/;
const HEADING = /^\s*h([1-6])\.\s?(.*)$/;
const LIST_ITEM = /^\s*([*#]+|-)\s+(.*)$/;
const RULE = /^\s*-{4,}\s*$/;
const TABLE_ROW = /^\s*\|/;
const IMAGE_LINE = /^\s*!([^!\s][^!]*)!\s*$/;

export function jiraWikiToAdf(wiki: string): WikiReading {
  const lossy = new Set<WikiLoss>();
  const lines = wiki.replace(/\r\n?/g, '\n').split('\n');
  const document: AdfDocument = { type: 'doc', version: 1, content: parseBlocks(lines, lossy) };
  return { document, lossy: [...lossy] };
}

function parseBlocks(lines: string[], lossy: Set<WikiLoss>): AdfNode[] {
  const out: AdfNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') { i++; continue; }
    const code = CODE_OPEN.exec(line);
    if (code) {
      const fenced = fencedBody(lines, i, code[3] ?? '', `{${code[1]}}`, (last) => last !== '');
      const body = fenced.body;
      i = fenced.next;
      const language = code[2]?.trim();
      const text = body.join('\n');
      out.push({ type: 'codeBlock', ...(language ? { attrs: { language } } : {}), content: text ? [{ type: 'text', text }] : [] });
      continue;
    }
    const quote = QUOTE_OPEN.exec(line);
    if (quote) {
      const fenced = fencedBody(lines, i, quote[2] ?? '', `{${quote[1]}}`, (last) => last.trim() !== '');
      const body = fenced.body;
      i = fenced.next;
      out.push({ type: quote[1] === 'panel' ? 'panel' : 'blockquote', content: parseBlocks(body, lossy) });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push({ type: 'heading', attrs: { level: Number(heading[1]) }, content: parseInline(heading[2] ?? '', lossy) });
      i++;
      continue;
    }
    if (/^\s*bq\.\s/.test(line)) {
      out.push({ type: 'blockquote', content: [{ type: 'paragraph', content: parseInline(line.replace(/^\s*bq\.\s/, ''), lossy) }] });
      i++;
      continue;
    }
    if (RULE.test(line)) { out.push({ type: 'rule' }); i++; continue; }
    if (TABLE_ROW.test(line)) {
      const rows: AdfNode[] = [];
      while (i < lines.length && TABLE_ROW.test(lines[i]!)) rows.push(tableRow(lines[i++]!, lossy));
      out.push({ type: 'table', content: rows });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const items: Array<{ marker: string; text: string }> = [];
      while (i < lines.length && LIST_ITEM.test(lines[i]!)) {
        const [, marker = '', text = ''] = LIST_ITEM.exec(lines[i]!)!;
        items.push({ marker: marker === '-' ? '*' : marker, text });
        i++;
      }
      out.push(...buildLists(items, 0, lossy).nodes);
      continue;
    }
    const image = IMAGE_LINE.exec(line);
    if (image) {
      lossy.add('attachment');
      out.push({ type: 'mediaSingle', content: [{ type: 'media', attrs: { alt: image[1]!.split('|')[0] } }] });
      i++;
      continue;
    }
    // A paragraph runs to a blank line or the start of another block; each line break inside it is a hard break.
    const paragraph: string[] = [line];
    i++;
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!)) paragraph.push(lines[i++]!);
    const content: AdfNode[] = [];
    paragraph.forEach((text, index) => {
      if (index > 0) content.push({ type: 'hardBreak' });
      content.push(...parseInline(text, lossy));
    });
    out.push({ type: 'paragraph', content: mergeText(content) });
  }
  return out;
}

/**
 * The lines of a `{code}`, `{noformat}`, `{quote}` or `{panel}` block whose opening tag is on line `start` with `first`
 * after it: up to the closing tag (on the same line, or a later one), and the index of the line after the block.
 */
function fencedBody(lines: string[], start: number, first: string, close: string, keepLast: (text: string) => boolean): { body: string[]; next: number } {
  if (first.includes(close)) return { body: [first.slice(0, first.indexOf(close))], next: start + 1 };
  const body = first.trim() !== '' ? [first] : [];
  let i = start + 1;
  while (i < lines.length && !lines[i]!.includes(close)) body.push(lines[i++]!);
  if (i < lines.length) {
    const last = lines[i]!.slice(0, lines[i]!.indexOf(close));
    if (keepLast(last)) body.push(last);
    i++;
  }
  return { body, next: i };
}

function startsBlock(line: string): boolean {
  return CODE_OPEN.test(line) || QUOTE_OPEN.test(line) || HEADING.test(line) || /^\s*bq\.\s/.test(line) || RULE.test(line) ||
    TABLE_ROW.test(line) || LIST_ITEM.test(line) || IMAGE_LINE.test(line);
}

/** Items whose marker is longer than the list's nest under the item before them; the last sign decides the kind. */
function buildLists(items: Array<{ marker: string; text: string }>, start: number, lossy: Set<WikiLoss>): { nodes: AdfNode[]; next: number } {
  const nodes: AdfNode[] = [];
  let i = start;
  const depth = items[start]!.marker.length;
  while (i < items.length && items[i]!.marker.length >= depth) {
    const kind = items[i]!.marker.endsWith('#') ? 'orderedList' : 'bulletList';
    const list: AdfNode = { type: kind, content: [] };
    while (i < items.length && items[i]!.marker.length === depth && (items[i]!.marker.endsWith('#') ? 'orderedList' : 'bulletList') === kind) {
      const item: AdfNode = { type: 'listItem', content: [{ type: 'paragraph', content: parseInline(items[i]!.text, lossy) }] };
      i++;
      if (i < items.length && items[i]!.marker.length > depth) {
        const nested = buildLists(items, i, lossy);
        item.content!.push(...nested.nodes);
        i = nested.next;
      }
      list.content!.push(item);
    }
    nodes.push(list);
    if (i < items.length && items[i]!.marker.length > depth) break;
  }
  return { nodes, next: i };
}

function tableRow(line: string, lossy: Set<WikiLoss>): AdfNode {
  const trimmed = line.trim();
  const header = trimmed.startsWith('||');
  const bar = header ? '||' : '|';
  const inner = trimmed.slice(bar.length, trimmed.endsWith(bar) ? -bar.length : undefined);
  const cells = splitOutsideEscapes(inner, bar);
  return {
    type: 'tableRow',
    content: cells.map((cell) => ({ type: header ? 'tableHeader' : 'tableCell', attrs: {}, content: [{ type: 'paragraph', content: parseInline(cell.trim(), lossy) }] })),
  };
}

function splitOutsideEscapes(text: string, separator: string): string[] {
  const cells: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) { current += text.slice(i, i + 2); i++; continue; }
    if (text.startsWith(separator, i)) { cells.push(current); current = ''; i += separator.length - 1; continue; }
    current += text[i];
  }
  cells.push(current);
  return cells;
}

/** What a bracket without a `|` links to: an address with a scheme, or one that starts with www. */
export const LINK_TARGET = /^(?:[a-z][a-z0-9+.-]*:\/\/|mailto:|www\.)/i;

const SIGNS: Record<string, string> = { '*': 'strong', _: 'em', '-': 'strike', '+': 'underline', '^': 'sup', '~': 'sub' };
const PUNCTUATION = /[!-/:-@[-`{-~]/;

/**
 * Inline notation, scanned left to right: an escape or a `\\` break, a braced sign, `{{code}}`, a `[link]`, an `!image!`, or a sign
 * that opens a mark where the notation says it can (at the start or after a non-word character, before a non-space,
 * with a closing sign after a non-space and before a non-word character or the end).
 */
export function parseInline(text: string, lossy: Set<WikiLoss>, marks: AdfMark[] = []): AdfNode[] {
  const out: AdfNode[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push(marks.length ? { type: 'text', text: plain, marks } : { type: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === '\\') { flush(); out.push({ type: 'hardBreak' }); i += 2; continue; }
      if (next !== undefined && PUNCTUATION.test(next)) { plain += next; i += 2; continue; }
      plain += c; i++; continue;
    }
    if (text.startsWith('&#92;', i)) { plain += '\\'; i += 5; continue; }
    // `{*}bold{*}`: the braced form of a sign, which marks text next to letters too (`{*}>{*}option`).
    if (c === '{' && SIGNS[text[i + 1] ?? ''] && text[i + 2] === '}') {
      const close = `{${text[i + 1]}}`;
      const end = findUnescaped(text, close, i + 3);
      if (end > i + 3) {
        flush();
        out.push(...parseInline(text.slice(i + 3, end), lossy, [...marks, { type: SIGNS[text[i + 1]!]! }]));
        i = end + 3;
        continue;
      }
    }
    if (text.startsWith('{{', i)) {
      const end = findUnescaped(text, '}}', i + 2);
      if (end > i + 2) {
        flush();
        out.push({ type: 'text', text: unescapeBraces(text.slice(i + 2, end)), marks: [...marks, { type: 'code' }] });
        i = end + 2;
        continue;
      }
    }
    if (c === '[') {
      const end = findUnescaped(text, ']', i + 1);
      if (end > i + 1) {
        flush();
        out.push(...bracket(text.slice(i + 1, end), lossy, marks));
        i = end + 1;
        continue;
      }
    }
    if (c === '!' && /[^\s!]/.test(text[i + 1] ?? ' ')) {
      const end = text.indexOf('!', i + 1);
      if (end > i + 1 && !/\s/.test(text.slice(i + 1, end))) {
        flush();
        lossy.add('attachment');
        out.push({ type: 'text', text: '[attachment]', ...(marks.length ? { marks } : {}) });
        i = end + 1;
        continue;
      }
    }
    const sign = SIGNS[c];
    if (sign && opensAt(text, i)) {
      const end = closingSign(text, c, i + 1);
      if (end > i + 1) {
        flush();
        out.push(...parseInline(text.slice(i + 1, end), lossy, [...marks, { type: sign }]));
        i = end + 1;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return mergeText(out);
}

function opensAt(text: string, i: number): boolean {
  const before = i === 0 ? ' ' : text[i - 1]!;
  const after = text[i + 1] ?? ' ';
  return !/[\p{L}\p{N}]/u.test(before) && !/\s/.test(after);
}

function closingSign(text: string, sign: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === '\\') { j++; continue; }
    if (text[j] !== sign || j === from) continue;
    const before = text[j - 1]!;
    const after = text[j + 1] ?? ' ';
    if (!/\s/.test(before) && !/[\p{L}\p{N}]/u.test(after)) return j;
  }
  return -1;
}

function findUnescaped(text: string, needle: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === '\\') { j++; continue; }
    if (text.startsWith(needle, j)) return j;
  }
  return -1;
}

function unescapeBraces(code: string): string {
  return code.replace(/\\([{}])/g, '$1');
}

/** `[text|url]`, `[url]`, `[~accountid:id]` / `[~name]`, `[text|url|smart-link]`. */
function bracket(inner: string, lossy: Set<WikiLoss>, marks: AdfMark[]): AdfNode[] {
  if (inner.startsWith('~')) {
    lossy.add('mention');
    const id = inner.slice(1).replace(/^accountid:/, '');
    return [{ type: 'mention', attrs: { id } }];
  }
  const parts = splitOutsideEscapes(inner, '|');
  if (parts.length === 1) {
    const href = parts[0]!.trim();
    // `[https://…]` is a link; `[WIP]` or `[svc-bot]`, typed as text, is text (Jira shows it so, and its renderer
    // escapes the brackets of text anyway).
    if (!LINK_TARGET.test(href)) return mergeText([{ type: 'text', text: '[', ...(marks.length ? { marks } : {}) }, ...parseInline(inner, lossy, marks), { type: 'text', text: ']', ...(marks.length ? { marks } : {}) }]);
    return [{ type: 'text', text: href, marks: [...marks, { type: 'link', attrs: { href } }] }];
  }
  const href = parts[1]!.trim();
  if (parts[2]?.trim() === 'smart-link') return [{ type: 'inlineCard', attrs: { url: href } }];
  return parseInline(parts[0]!, lossy, [...marks, { type: 'link', attrs: { href } }]);
}
