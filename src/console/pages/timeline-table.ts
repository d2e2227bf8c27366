import type { TimelineEntry } from '../../../workflows/read-model/timeline';
import { html, type SafeHtml } from '../html';
import { safeHttpUrl } from '../safe-links';

/** What an effect entry made, when its provider evidence names an address (a comment, a pull request, a commit). */
export function evidenceUrl(entry: TimelineEntry): string | undefined {
  if (entry.kind !== 'effect') return undefined;
  const evidence = entry.details.evidence as { url?: unknown } | undefined;
  return typeof evidence?.url === 'string' ? safeHttpUrl(evidence.url) : undefined;
}

/** The timeline, newest first. Summaries carry comment text: escaped like everything else. */
export function timelineTable(entries: readonly TimelineEntry[], total: number): SafeHtml {
  const rows = [...entries].reverse();
  return html`<table class="timeline">
<thead><tr><th>#</th><th>when</th><th>kind</th><th>status</th><th>what</th></tr></thead>
<tbody>${rows.map((entry) => {
    const url = evidenceUrl(entry);
    return html`<tr data-kind="${entry.kind}"><td>${entry.event_id}</td><td><time datetime="${entry.occurred_at}">${entry.occurred_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')}</time></td>
<td>${entry.kind.replace(/_/g, ' ')}</td><td>${entry.status}</td><td>${entry.summary}${url ? html` <a href="${url}" rel="noreferrer noopener">what it made</a>` : ''}</td></tr>`;
  })}</tbody></table>
${total > entries.length ? html`<p class="muted small">the newest ${entries.length} of ${total} entries (the whole timeline: GET /api/v1/workflows/…/execution/timeline)</p>` : ''}`;
}
