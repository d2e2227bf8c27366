/**
 * The wiki markup Jira Cloud puts in its webhooks for rich text stored as ADF: `comment.body` and
 * `issue.fields.description` arrive as strings in Jira's text formatting notation, while REST v3 answers the same
 * content as ADF. The simulator renders what it stores this way so that the service's webhook path reads what a
 * real Jira sends. Notation: headings `h2. `, `*strong*`, `_em_`, `-strike-`, `+underline+`, `{{code}}`, `[text|url]`,
 * `[~accountid:…]`, lists `*`/`#` (nested by repetition), `{code:lang}` blocks, `{quote}`, `{panel}`, `----`, tables
 * `||head||` and `|cell|`, `!attachment!`, and a backslash before a character that would otherwise be markup.
 */
import type { AdfMark, AdfNode } from '../../providers/tracker/adf/adf-types';
import { LINK_TARGET } from '../../providers/tracker/wiki/jira-wiki-to-adf';

export function adfToJiraWiki(document: unknown): string {
  if (typeof document === 'string') return document;
  if (!document || typeof document !== 'object') return '';
  return blocks((document as AdfNode).content ?? []).trim();
}

function blocks(nodes: AdfNode[], inQuote = false): string {
  return nodes.map((node) => block(node, '', inQuote)).filter((text) => text !== '').join('\n\n');
}

function block(node: AdfNode, listPrefix: string, inQuote = false): string {
  switch (node.type) {
    case 'paragraph':
      return inline(node.content ?? []);
    case 'heading':
      return `h${Math.min(6, Math.max(1, Number(node.attrs?.level ?? 1)))}. ${inline(node.content ?? [])}`;
    case 'bulletList':
    case 'orderedList':
      return list(node, listPrefix);
    case 'codeBlock': {
      const language = typeof node.attrs?.language === 'string' && node.attrs.language ? `:${node.attrs.language}` : '';
      return `{code${language}}\n${(node.content ?? []).map((child) => child.text ?? '').join('')}\n{code}`;
    }
    case 'blockquote':
      // `{quote}` does not nest: a quote inside one is written with `bq.`, a paragraph each.
      if (inQuote) return (node.content ?? []).map((child) => `bq. ${child.type === 'paragraph' ? inline(child.content ?? []) : block(child, '', true)}`).join('\n');
      return `{quote}\n${blocks(node.content ?? [], true)}\n{quote}`;
    case 'panel':
      return `{panel}\n${blocks(node.content ?? [])}\n{panel}`;
    case 'rule':
      return '----';
    case 'table':
      return (node.content ?? []).map((row) => {
        const cells = row.content ?? [];
        const header = cells.length > 0 && cells.every((cell) => cell.type === 'tableHeader');
        const bar = header ? '||' : '|';
        return `${bar}${cells.map((cell) => blocks(cell.content ?? []).replace(/\n+/g, ' ')).join(bar)}${bar}`;
      }).join('\n');
    case 'mediaSingle':
    case 'mediaGroup':
      return (node.content ?? []).map((media) => `!${String(media.attrs?.alt ?? media.attrs?.id ?? 'attachment')}|thumbnail!`).join(' ');
    default:
      if (!node.content) return node.text ? escapeText(node.text, true) : '';
      return node.content.some((child) => child.type !== 'text' && child.type !== 'hardBreak' && child.type !== 'mention')
        ? blocks(node.content)
        : inline(node.content);
  }
}

function list(node: AdfNode, prefix: string): string {
  const marker = prefix + (node.type === 'orderedList' ? '#' : '*');
  return (node.content ?? []).map((item) => {
    const [first, ...rest] = item.content ?? [];
    const head = first?.type === 'paragraph' ? inline(first.content ?? []) : '';
    const tail = (first?.type === 'paragraph' ? rest : item.content ?? []).map((child) => block(child, marker));
    return [`${marker} ${head}`, ...tail].join('\n');
  }).join('\n');
}

function inline(nodes: AdfNode[]): string {
  let atLineStart = true;
  return nodes.map((node, index) => {
    // A sign next to a letter or digit of the text around it does not count as markup, so it is written in braces.
    const before = nodes[index - 1]?.text?.slice(-1) ?? '';
    const after = nodes[index + 1]?.text?.slice(0, 1) ?? '';
    const text = inlineNode(node, atLineStart, WORD.test(before) || WORD.test(after));
    atLineStart = node.type === 'hardBreak' || (atLineStart && text === '');
    return text;
  }).join('');
}

const WORD = /[\p{L}\p{N}]/u;

function inlineNode(node: AdfNode, atLineStart: boolean, braced: boolean): string {
  switch (node.type) {
    case 'text':
      return marked(node.text ?? '', node.marks ?? [], atLineStart, braced);
    case 'hardBreak':
      return '\n';
    case 'mention':
      return `[~accountid:${String(node.attrs?.id ?? '')}]`;
    case 'emoji':
      return String(node.attrs?.shortName ?? node.attrs?.text ?? '');
    case 'inlineCard':
      return `[${String(node.attrs?.url ?? '')}|${String(node.attrs?.url ?? '')}|smart-link]`;
    case 'date':
      return node.attrs?.timestamp ? new Date(Number(node.attrs.timestamp)).toISOString().slice(0, 10) : '';
    case 'status':
      return escapeText(String(node.attrs?.text ?? ''), atLineStart);
    default:
      return node.content ? inline(node.content) : escapeText(node.text ?? '', atLineStart);
  }
}

const MARK_SIGN: Record<string, string> = { strong: '*', em: '_', strike: '-', underline: '+', subsup: '' };

function marked(text: string, marks: AdfMark[], atLineStart: boolean, braced: boolean): string {
  const link = marks.find((mark) => mark.type === 'link');
  const href = link ? String(link.attrs?.href ?? '') : '';
  if (marks.some((mark) => mark.type === 'code')) {
    const code = `{{${text.replace(/[{}]/g, (c) => `\\${c}`)}}}`;
    return link ? `[${code}|${href}]` : code;
  }
  // Signs hug the words: `*bold *` is not bold in wiki markup either, so the spaces stay outside.
  const [, lead = '', core = '', trail = ''] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text) ?? [];
  if (!core) return text;
  let out = escapeText(core, atLineStart && lead === '');
  for (const mark of marks) {
    const sign = MARK_SIGN[mark.type];
    if (sign) out = braced || !WORD.test(core.slice(0, 1)) || !WORD.test(core.slice(-1)) ? `{${sign}}${out}{${sign}}` : `${sign}${out}${sign}`;
  }
  // `[address]` alone only for an address the notation takes for one; any other target keeps its text and a `|`.
  if (link) out = core === href && LINK_TARGET.test(href) ? `[${href}]` : `[${out}|${href}]`;
  return lead + out + trail;
}

/**
 * A backslash before every character the notation could take for markup, so that text reads back as text: the
 * signs of the marks, brackets, braces, the image and table signs, and at a line's start the list, heading and
 * quote forms. A literal backslash is written as its character reference, since `\\` is a line break in the notation.
 */
function escapeText(text: string, atLineStart: boolean): string {
  const escaped = text
    .replace(/[*_\-+^~{}[\]!|?#]/g, (c) => `\\${c}`)
    .replace(/\\(?![*_\-+^~{}[\]!|?#])/g, '&#92;')
    .replace(/\n([ \t]*)(h[1-6]|bq)\./g, '\n$1$2\\.');
  return atLineStart ? escaped.replace(/^([ \t]*)(h[1-6]|bq)\./, '$1$2\\.') : escaped;
}
