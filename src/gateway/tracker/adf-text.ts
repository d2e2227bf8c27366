/**
 * Comment bodies arrive from Jira Cloud as ADF documents and from older installations as strings. Command parsing only
 * needs the text, so this flattens ADF to plain text with one line per block.
 */
interface AdfNode {
  type?: string;
  text?: string;
  attrs?: Record<string, unknown>;
  content?: AdfNode[];
}

const BLOCKS = new Set(['paragraph', 'heading', 'codeBlock', 'blockquote', 'listItem', 'rule', 'tableRow']);

function flatten(node: AdfNode, out: string[]): void {
  if (node.type === 'text' && typeof node.text === 'string') out.push(node.text);
  else if (node.type === 'hardBreak') out.push('\n');
  else if (node.type === 'mention') out.push(String(node.attrs?.text ?? ''));
  else if (node.type === 'emoji') out.push(String(node.attrs?.text ?? node.attrs?.shortName ?? ''));
  for (const child of node.content ?? []) flatten(child, out);
  if (node.type && BLOCKS.has(node.type)) out.push('\n');
}

export function commentBodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (!body || typeof body !== 'object') return '';
  const out: string[] = [];
  flatten(body as AdfNode, out);
  return out.join('').replace(/\n{3,}/g, '\n\n').trim();
}
