import { adfToMarkdown } from './adf/adf-to-markdown';
import { jiraWikiToAdf } from './wiki/jira-wiki-to-adf';

/**
 * Jira rich text as the service reads it, whichever form it came in: ADF (Cloud REST v3) or a wiki-markup string
 * (Cloud webhooks, Server/Data Center REST v2). Both become the same Markdown, so a comment seen by webhook and by
 * the poller is one fact with one fingerprint (docs/architecture.md, "Jira's two forms of rich text").
 */
export function trackerRichTextToMarkdown(value: unknown): string {
  return typeof value === 'string' ? adfToMarkdown(jiraWikiToAdf(value).document) : adfToMarkdown(value);
}
