/**
 * The subset of Atlassian Document Format (ADF) that the service writes, and the node shape it reads. Jira Cloud
 * REST v3 takes and returns rich text (descriptions, comments) as ADF documents.
 */

export interface AdfMark {
  type: 'strong' | 'em' | 'code' | 'strike' | 'link' | 'underline' | string;
  attrs?: Record<string, unknown>;
}

export interface AdfNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: AdfNode[];
  text?: string;
  marks?: AdfMark[];
}

export interface AdfDocument extends AdfNode {
  type: 'doc';
  version: 1;
  content: AdfNode[];
}

export function isAdfDocument(value: unknown): value is AdfDocument {
  return Boolean(value) && typeof value === 'object' && (value as { type?: unknown }).type === 'doc' &&
    Array.isArray((value as { content?: unknown }).content);
}
