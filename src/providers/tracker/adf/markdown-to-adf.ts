/**
 * Markdown to ADF, for what the service posts: PRDs, specs, plans, RCAs and status comments. Covers headings,
 * paragraphs, nested bullet and ordered lists, task-free block quotes, fenced code, tables, rules, and the inline
 * marks bold, italic, strike, code and links. Anything else stays literal text, so nothing is lost.
 */
import type { AdfDocument, AdfMark, AdfNode } from './adf-types';

export function markdownToAdf(markdown: string): AdfDocument {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  return { type: 'doc', version: 1, content: parseBlocks(lines) };
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^(\s*)(```|~~~)\s*([\w+#.-]*)\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
// A space after '>' is required (CommonMark does not): `>option 2` is a command at the RCA gate, not a quote.
const QUOTE = /^\s{0,3}>(?:\s(.*))?$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function parseBlocks(lines: string[]): AdfNode[] {
  const blocks: AdfNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '') { i++; continue; }

    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[2] ?? '```';
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(marker)) body.push(lines[i++] ?? '');
      i++; // closing fence (or end of input)
      const node: AdfNode = { type: 'codeBlock', content: body.length ? [{ type: 'text', text: body.join('\n') }] : [] };
      if (fence[3]) node.attrs = { language: fence[3] };
      blocks.push(node);
      continue;
    }

    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ type: 'heading', attrs: { level: (heading[1] ?? '#').length }, content: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }

    if (RULE.test(line)) { blocks.push({ type: 'rule' }); i++; continue; }

    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? '')) body.push(QUOTE.exec(lines[i++] ?? '')?.[1] ?? '');
      blocks.push({ type: 'blockquote', content: parseBlocks(body) });
      continue;
    }

    if (TABLE_ROW.test(line) && TABLE_DIVIDER.test(lines[i + 1] ?? '')) {
      const header = splitRow(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && TABLE_ROW.test(lines[i] ?? '')) rows.push(splitRow(lines[i++] ?? ''));
      blocks.push({
        type: 'table',
        attrs: { isNumberColumnEnabled: false, layout: 'default' },
        content: [
          { type: 'tableRow', content: header.map((cell) => tableCell('tableHeader', cell)) },
          ...rows.map((row) => ({ type: 'tableRow', content: header.map((_, c) => tableCell('tableCell', row[c] ?? '')) })),
        ],
      });
      continue;
    }

    if (LIST_ITEM.test(line)) {
      const end = listEnd(lines, i);
      blocks.push(parseList(lines.slice(i, end)));
      i = end;
      continue;
    }

    const paragraph: string[] = [];
    while (i < lines.length && (lines[i] ?? '').trim() !== '' && !startsBlock(lines, i)) paragraph.push(lines[i++] ?? '');
    blocks.push({ type: 'paragraph', content: parseParagraph(paragraph) });
  }
  return blocks;
}

function startsBlock(lines: string[], i: number): boolean {
  const line = lines[i] ?? '';
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line) ||
    (TABLE_ROW.test(line) && TABLE_DIVIDER.test(lines[i + 1] ?? ''));
}

/** A list runs until a blank line followed by something that is neither indented nor another item. */
function listEnd(lines: string[], start: number): number {
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      const next = lines[i + 1] ?? '';
      if (LIST_ITEM.test(next) || /^\s{2,}\S/.test(next)) { i++; continue; }
      break;
    }
    if (i > start && !LIST_ITEM.test(line) && !/^\s{2,}/.test(line) && startsBlock(lines, i)) break;
    i++;
  }
  return i;
}

function indentOf(line: string): number {
  return (/^\s*/.exec(line)?.[0] ?? '').replace(/\t/g, '    ').length;
}

function parseList(lines: string[]): AdfNode {
  const first = LIST_ITEM.exec(lines[0] ?? '');
  const baseIndent = indentOf(lines[0] ?? '');
  const ordered = /\d/.test(first?.[2] ?? '');
  const items: AdfNode[] = [];
  let current: { text: string[]; children: string[] } | undefined;
  const flush = () => {
    if (!current) return;
    const content: AdfNode[] = [{ type: 'paragraph', content: parseParagraph(current.text) }];
    const childLines = current.children.filter((l) => l.trim() !== '');
    if (childLines.length) content.push(...parseBlocks(dedent(childLines)));
    items.push({ type: 'listItem', content });
  };
  for (const line of lines) {
    const item = LIST_ITEM.exec(line);
    if (item && indentOf(line) <= baseIndent) {
      flush();
      current = { text: [item[3] ?? ''], children: [] };
    } else if (current) {
      if (current.children.length === 0 && !LIST_ITEM.test(line) && line.trim() !== '') current.text.push(line.trim());
      else current.children.push(line);
    }
  }
  flush();
  const node: AdfNode = { type: ordered ? 'orderedList' : 'bulletList', content: items };
  if (ordered) node.attrs = { order: Number.parseInt(first?.[2] ?? '1', 10) || 1 };
  return node;
}

function dedent(lines: string[]): string[] {
  const min = Math.min(...lines.map(indentOf));
  return lines.map((line) => line.replace(/\t/g, '    ').slice(min));
}

function splitRow(line: string): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function tableCell(type: 'tableHeader' | 'tableCell', text: string): AdfNode {
  return { type, attrs: {}, content: [{ type: 'paragraph', content: parseInline(text) }] };
}

/** Lines of one paragraph; a line ending in two spaces or a backslash is a hard break, others join with a space. */
function parseParagraph(lines: string[]): AdfNode[] {
  const content: AdfNode[] = [];
  lines.forEach((raw, index) => {
    const hard = /( {2,}|\\)$/.test(raw);
    const text = raw.replace(/( {2,}|\\)$/, '').trim();
    content.push(...parseInline(text));
    if (index < lines.length - 1) content.push(hard ? { type: 'hardBreak' } : { type: 'text', text: ' ' });
  });
  return mergeText(content);
}

const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|(\*\*|__)(?=\S)([\s\S]*?\S)\5|(~~)(?=\S)([\s\S]*?\S)~~|(\*|_)(?=\S)([\s\S]*?\S)\9(?![\w*])|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/;

export function parseInline(text: string, marks: AdfMark[] = []): AdfNode[] {
  const out: AdfNode[] = [];
  let rest = text;
  while (rest.length > 0) {
    const match = INLINE.exec(rest);
    if (!match) { out.push(textNode(unescape(rest), marks)); break; }
    if (match.index > 0) out.push(textNode(unescape(rest.slice(0, match.index)), marks));
    if (match[1]) {
      out.push(textNode(match[2] ?? '', [...marks, { type: 'code' }]));
    } else if (match[4] !== undefined) {
      out.push(...parseInline(match[3] || match[4], [...marks, { type: 'link', attrs: { href: match[4] } }]));
    } else if (match[5]) {
      out.push(...parseInline(match[6] ?? '', [...marks, { type: 'strong' }]));
    } else if (match[7]) {
      out.push(...parseInline(match[8] ?? '', [...marks, { type: 'strike' }]));
    } else if (match[9]) {
      out.push(...parseInline(match[10] ?? '', [...marks, { type: 'em' }]));
    } else if (match[11]) {
      out.push(textNode(match[11], [...marks, { type: 'link', attrs: { href: match[11] } }]));
    }
    rest = rest.slice(match.index + match[0].length);
  }
  return mergeText(out.filter((node) => node.type !== 'text' || node.text));
}

function unescape(text: string): string {
  return text.replace(/\\([\\`*_{}[\]()#+\-.!|~>])/g, '$1');
}

function textNode(text: string, marks: AdfMark[]): AdfNode {
  return marks.length ? { type: 'text', text, marks } : { type: 'text', text };
}

/** Joins neighbouring text nodes with identical marks, as Jira's editor does. */
export function mergeText(nodes: AdfNode[]): AdfNode[] {
  const out: AdfNode[] = [];
  for (const node of nodes) {
    const last = out[out.length - 1];
    if (last && last.type === 'text' && node.type === 'text' && JSON.stringify(last.marks ?? []) === JSON.stringify(node.marks ?? [])) {
      last.text = (last.text ?? '') + (node.text ?? '');
    } else {
      out.push({ ...node });
    }
  }
  return out;
}
