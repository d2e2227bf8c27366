/**
 * Long artifacts are posted as several tracker comments, "Part i of n", each under the tracker's comment size limit
 * (REFERENCE "Tracker conventions"). Pure and deterministic: the same text always gives the same parts, so the
 * effect that posts part i keeps its idempotency key and its body across retries and replays.
 */

/** Jira Cloud refuses comments over 32,767 characters; the margin covers the part header and the ADF round trip. */
export const DEFAULT_PART_LIMIT = 30_000;

const FENCE = /^\s*(```|~~~)/;

/** Room the "Part i of n" header takes, kept free in every part. */
const HEADER_ROOM = 40;

/**
 * Splits Markdown into chunks of at most `limit` characters, preferring a blank line, then a line end, and only
 * cutting inside a line when one line alone is too long. A chunk that ends inside a fenced code block closes the
 * fence and the next chunk reopens it, so each part renders on its own.
 */
export function splitMarkdown(markdown: string, limit = DEFAULT_PART_LIMIT): string[] {
  const budget = Math.max(200, limit - HEADER_ROOM);
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  let fence: string | null = null;
  /** Index in `current` after the last blank line outside a fence: the preferred place to cut. */
  let lastBreak = -1;

  const flush = (upTo: number) => {
    const taken = current.slice(0, upTo);
    const rest = current.slice(upTo);
    // Where the taken lines leave the fence decides whether this chunk must close one and the next reopen it.
    let open: string | null = null;
    for (const line of taken) {
      const match = FENCE.exec(line);
      if (match) open = open ? null : line.trim();
    }
    const text = taken.join('\n').replace(/\n+$/, '');
    if (text.trim() !== '') chunks.push(open ? `${text}\n${open.slice(0, 3)}` : text);
    current = open ? [open, ...rest] : rest;
    size = current.reduce((sum, line) => sum + line.length + 1, 0);
    lastBreak = -1;
  };

  for (const raw of lines) {
    let line = raw;
    // One line longer than the budget: cut it into pieces (a table row or a URL-heavy paragraph).
    while (line.length > budget) {
      if (current.length) flush(current.length);
      chunks.push(line.slice(0, budget));
      line = line.slice(budget);
    }
    if (size + line.length + 1 > budget && current.length) flush(lastBreak > 0 ? lastBreak : current.length);
    current.push(line);
    size += line.length + 1;
    if (FENCE.test(line)) fence = fence ? null : line.trim();
    if (!fence && line.trim() === '') lastBreak = current.length;
  }
  if (current.length) flush(current.length);
  return chunks.length ? chunks : [''];
}

/** The parts as posted: with a "Part i of n" line when there is more than one. */
export function commentParts(markdown: string, limit = DEFAULT_PART_LIMIT): string[] {
  const chunks = splitMarkdown(markdown, limit);
  if (chunks.length === 1) return chunks;
  return chunks.map((chunk, index) => `_Part ${index + 1} of ${chunks.length}_\n\n${chunk}`);
}
