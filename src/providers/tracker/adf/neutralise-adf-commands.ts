/**
 * The command breaks of src/redaction/neutralise-commands.ts, applied to the ADF document Jira stores, which is what
 * every reader of the comment renders: the service's ADF-to-Markdown reader today, Jira's wiki markup in webhooks
 * later, a person's screen. Breaking the Markdown before conversion is not enough: the conversion consumes escapes
 * (`\!ship` becomes `!ship`), and a link whose text is its address reads back as bare text (`[/service](/service)`).
 *
 * So the document is read as plain text, the way a renderer that drops every mark and block marker would show it:
 * every block and hard break starts a line, and marks, links and node boundaries vanish (`>` and a bold `option 1`
 * are `>option 1`; `>option` closing one paragraph and `2` opening the next are `>option 2` to the grammar, whose
 * `\s*` spans line ends). The breaks found in that text go into the text nodes they fall in, as a character of the
 * text, so any faithful renderer keeps the zero-width space where the line starts. Link addresses, which the Markdown
 * reader shows, get their `>option` broken too. The result is then read back with the real reader and checked with
 * the comment grammar; a document that would still command is refused (CommandNeutralisationError).
 */
import { assertNoCommand, COMMAND_BREAK, commandBreaks, insertBreaks, optionBreaks } from '../../../redaction/neutralise-commands';
import { adfToMarkdown, renderInline } from './adf-to-markdown';
import type { AdfDocument, AdfNode } from './adf-types';

/** Nodes that sit inside a line; every other node is a block of its own. */
const INLINE = new Set(['text', 'hardBreak', 'mention', 'emoji', 'inlineCard', 'date', 'status', 'inlineExtension']);

interface Piece {
  /** Where the piece starts in the plain text. */
  start: number;
  length: number;
  node: AdfNode;
  /** Whether the text shown is the node's own text, so a break can go into it (not so for a mention or a card). */
  ownText: boolean;
  /** The content array the node sits in. */
  siblings: AdfNode[];
}

interface Plain {
  text: string;
  pieces: Piece[];
}

function readPlain(node: AdfNode, siblings: AdfNode[], plain: Plain): void {
  const piece = (shown: string, ownText: boolean) => {
    plain.pieces.push({ start: plain.text.length, length: shown.length, node, ownText, siblings });
    plain.text += shown;
  };
  const block = !INLINE.has(node.type);
  if (node.type === 'hardBreak') plain.text += '\n';
  else if (node.type === 'text') piece(node.text ?? '', true);
  else if (!block) piece(renderInline([node]), false);
  else {
    // A block (or a node this reader does not know, which the Markdown reader shows as a block) is lines of its own.
    plain.text += '\n';
    if (node.content) for (const child of node.content) readPlain(child, node.content, plain);
    else if (typeof node.text === 'string') piece(node.text, true);
    plain.text += '\n';
  }
}

/** The document as text with no marks and every block on lines of its own, with where each text piece went. */
export function adfPlainText(document: AdfNode): Plain {
  const plain: Plain = { text: '', pieces: [] };
  readPlain(document, [], plain);
  return plain;
}

function breakLinkAddresses(node: AdfNode): void {
  for (const mark of node.marks ?? []) {
    // An address is never where a Markdown line starts, but `>option N` counts anywhere.
    if (mark.type === 'link' && typeof mark.attrs?.href === 'string') mark.attrs.href = insertBreaks(mark.attrs.href, optionBreaks(mark.attrs.href));
  }
  for (const child of node.content ?? []) breakLinkAddresses(child);
}

/** The piece showing the character at `offset`, by bisection: pieces are in text order and do not overlap. */
function pieceAt(pieces: readonly Piece[], offset: number): Piece | undefined {
  let low = 0;
  let high = pieces.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const piece = pieces[middle]!;
    if (offset < piece.start) high = middle - 1;
    else if (offset >= piece.start + piece.length) low = middle + 1;
    else return piece;
  }
  return undefined;
}

export function neutraliseAdfCommands<T extends AdfNode = AdfDocument>(document: T): T {
  // ADF is JSON on the wire; a JSON copy is several times faster than structuredClone on a long document.
  const copy = JSON.parse(JSON.stringify(document)) as T;
  const plain = adfPlainText(copy);
  const inText = new Map<AdfNode, number[]>();
  const inFront = new Map<AdfNode[], AdfNode[]>();
  for (const offset of commandBreaks(plain.text)) {
    // A break falls on a trigger's first character, which a piece shows; a break no piece can take is left to the
    // check below, which refuses the document.
    const piece = pieceAt(plain.pieces, offset);
    if (piece?.ownText) inText.set(piece.node, [...(inText.get(piece.node) ?? []), offset - piece.start]);
    else if (piece && offset === piece.start) inFront.set(piece.siblings, [...(inFront.get(piece.siblings) ?? []), piece.node]);
  }
  for (const [node, offsets] of inText) node.text = insertBreaks(node.text ?? '', offsets);
  // A mention or a card shows text it does not hold: its break is a text node of its own in front of it.
  for (const [siblings, nodes] of inFront) {
    for (const node of nodes) siblings.splice(siblings.indexOf(node), 0, { type: 'text', text: COMMAND_BREAK });
  }
  breakLinkAddresses(copy);
  assertNoCommand(adfToMarkdown(copy), 'the document as the tracker reader reads it back');
  assertNoCommand(adfPlainText(copy).text, 'the document as plain text');
  return copy;
}
