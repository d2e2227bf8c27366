/**
 * ADF to Markdown, for what the service reads: ticket descriptions, comments (commands, questions, feedback) and
 * the artifacts it posted earlier. Unknown nodes keep their text so a model still sees everything a person wrote.
 */
import type { AdfMark, AdfNode } from './adf-types';

export function adfToMarkdown(document: unknown): string {
  if (typeof document === 'string') return document; // Jira REST v2 style plain text, tolerated.
  if (!document || typeof document !== 'object') return '';
  return renderBlocks((document as AdfNode).content ?? [], '').replace(/\n{3,}/g, '\n\n').trim();
}

function renderBlocks(nodes: AdfNode[], indent: string): string {
  return nodes.map((node) => renderBlock(node, indent)).filter((text) => text !== '').join('\n\n');
}

function renderBlock(node: AdfNode, indent: string): string {
  switch (node.type) {
    case 'paragraph':
      return prefixLines(renderInline(node.content ?? []), indent);
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(node.attrs?.level ?? 1)));
      return `${indent}${'#'.repeat(level)} ${renderInline(node.content ?? [])}`;
    }
    case 'bulletList':
    case 'orderedList':
      return renderList(node, indent);
    case 'codeBlock': {
      const language = typeof node.attrs?.language === 'string' ? node.attrs.language : '';
      const body = (node.content ?? []).map((child) => child.text ?? '').join('');
      return prefixLines(`\`\`\`${language}\n${body}\n\`\`\``, indent);
    }
    case 'blockquote':
      return renderBlocks(node.content ?? [], '').split('\n').map((line) => `${indent}> ${line}`.trimEnd()).join('\n');
    case 'rule':
      return `${indent}---`;
    case 'table':
      return renderTable(node, indent);
    case 'panel': {
      const body = renderBlocks(node.content ?? [], '');
      return body.split('\n').map((line) => `${indent}> ${line}`.trimEnd()).join('\n');
    }
    case 'mediaSingle':
    case 'mediaGroup':
      return `${indent}[attachment]`;
    default:
      // expand, nestedExpand, layoutSection, taskList, decisionList...: keep their content.
      if (node.content) {
        const blocks = node.content.some((child) => isBlock(child));
        return blocks ? renderBlocks(node.content, indent) : prefixLines(renderInline(node.content), indent);
      }
      return node.text ? `${indent}${node.text}` : '';
  }
}

function isBlock(node: AdfNode): boolean {
  return !['text', 'hardBreak', 'mention', 'emoji', 'inlineCard', 'date', 'status', 'inlineExtension'].includes(node.type);
}

function renderList(node: AdfNode, indent: string): string {
  const ordered = node.type === 'orderedList';
  let number = Number(node.attrs?.order ?? 1) || 1;
  return (node.content ?? []).map((item) => {
    const marker = ordered ? `${number++}. ` : '- ';
    const childIndent = indent + ' '.repeat(marker.length);
    const children = item.content ?? [];
    const [first, ...rest] = children;
    const head = first && first.type === 'paragraph' ? renderInline(first.content ?? []).replace(/\n/g, `\n${childIndent}`) : '';
    const tail = (first && first.type === 'paragraph' ? rest : children).map((child) => renderBlock(child, childIndent));
    return [`${indent}${marker}${head}`, ...tail].join('\n');
  }).join('\n');
}

function renderTable(node: AdfNode, indent: string): string {
  const rows = (node.content ?? []).map((row) => (row.content ?? []).map((cell) =>
    renderBlocks(cell.content ?? [], '').replace(/\n+/g, ' ').replace(/\|/g, '\\|')));
  if (rows.length === 0) return '';
  const width = Math.max(...rows.map((row) => row.length));
  const line = (cells: string[]) => `${indent}| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), `${indent}|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

function prefixLines(text: string, indent: string): string {
  return indent ? text.split('\n').map((line) => indent + line).join('\n') : text;
}

export function renderInline(nodes: AdfNode[]): string {
  return nodes.map((node) => {
    switch (node.type) {
      case 'text':
        return applyMarks(node.text ?? '', node.marks ?? []);
      case 'hardBreak':
        return '\n';
      case 'mention':
        return String(node.attrs?.text ?? `@${String(node.attrs?.id ?? 'someone')}`);
      case 'emoji':
        return String(node.attrs?.text ?? node.attrs?.shortName ?? '');
      case 'inlineCard':
      case 'blockCard':
        return String(node.attrs?.url ?? '');
      case 'date':
        return node.attrs?.timestamp ? new Date(Number(node.attrs.timestamp)).toISOString().slice(0, 10) : '';
      case 'status':
        return String(node.attrs?.text ?? '');
      default:
        return node.content ? renderInline(node.content) : node.text ?? '';
    }
  }).join('');
}

function applyMarks(text: string, marks: AdfMark[]): string {
  if (marks.some((mark) => mark.type === 'code')) {
    const ticks = text.includes('`') ? '``' : '`';
    const code = `${ticks}${text}${ticks}`;
    const link = marks.find((mark) => mark.type === 'link');
    return link ? `[${code}](${String(link.attrs?.href ?? '')})` : code;
  }
  // Keep surrounding spaces outside the markers: `** bold**` is not bold in Markdown.
  const [, lead = '', core = '', trail = ''] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text) ?? [];
  if (!core) return text;
  let out = core;
  for (const mark of marks) {
    if (mark.type === 'strong') out = `**${out}**`;
    else if (mark.type === 'em') out = `_${out}_`;
    else if (mark.type === 'strike') out = `~~${out}~~`;
  }
  const link = marks.find((mark) => mark.type === 'link');
  if (link) {
    const href = String(link.attrs?.href ?? '');
    out = out === href ? href : `[${out}](${href})`;
  }
  return lead + out + trail;
}
