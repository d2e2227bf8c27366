import { adfToMarkdown } from '../../providers/tracker/adf/adf-to-markdown';
/** Placeholder until the wiki renderer lands: not Jira's wiki markup. */
export function adfToJiraWiki(doc: unknown): string { return adfToMarkdown(doc); }
