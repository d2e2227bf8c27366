import { jiraWikiToAdf } from '../../providers/tracker/wiki/jira-wiki-to-adf';

/**
 * A comment a webhook carries as wiki markup, read again through REST v3 when the wiki form lost something (a
 * mention keeps only its account id there, an attachment only its file name; jira-wiki-to-adf.ts). The poller reads
 * every comment as ADF: without the read-back the two arrivals would carry different text under one delivery
 * identity, and the ledger would take the second for a contradicting fact.
 */

export interface CommentBodyReader {
  /** The comment's body as REST v3 answers it (ADF); undefined where REST answers wiki markup too (Server/DC). */
  adfBodyOf(issueKey: string, commentId: string): Promise<unknown>;
}

/** Whether a comment body from a webhook must be read back: a wiki string whose reading lost something. */
export function needsReadBack(body: unknown): boolean {
  return typeof body === 'string' && jiraWikiToAdf(body).lossy.length > 0;
}

/**
 * The payload with its comment's body replaced by the ADF REST answers, when the wiki form lost something and a
 * reader is configured; the payload as it came otherwise. Errors of the reader (the tracker unreachable, the comment
 * gone) are the caller's to answer.
 */
export async function withCommentReadBack<T extends { comment?: { id: string; body?: unknown } }>(payload: T, issueKey: string, reader: CommentBodyReader | undefined): Promise<T> {
  const comment = payload.comment;
  if (!reader || !comment || !needsReadBack(comment.body)) return payload;
  const body = await reader.adfBodyOf(issueKey, comment.id);
  // Where REST too answers wiki markup, the poller reads what the webhook carried: nothing to replace.
  if (body === undefined) return payload;
  return { ...payload, comment: { ...comment, body } };
}
