import type { DefinitionSummary } from '../../../workflows/registry/definition-registry-state';
import type { PinnedDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { layoutDefinition } from '../graph/definition-layout';
import { graphSvg } from '../graph/graph-svg';
import { html, type SafeHtml } from '../html';
import { diffHref } from './definition-diff-page';

/** Every known revision, built-in and published, each linked to its drawing. */
export function definitionsIndex(summaries: readonly DefinitionSummary[]): SafeHtml {
  return html`<h1>Definitions</h1>
<table><thead><tr><th>name</th><th>revision</th><th>source</th><th>new tickets pin it</th><th>description</th></tr></thead><tbody>
${summaries.map((d) => html`<tr><td><a href="/console/definitions/${encodeURIComponent(d.name)}/${d.revision}">${d.name}</a></td><td>r${d.revision}</td><td>${d.source.replace('_', '-')}${d.published_by ? ` by ${d.published_by}` : ''}</td><td>${d.latest ? 'yes' : ''}</td><td>${d.description ?? ''}</td></tr>`)}
</tbody></table>`;
}

/** Links to the comparison of this revision with each other known revision of its name (older one first). */
function compareLinks(definition: PinnedDefinition, revisions: readonly number[]): SafeHtml {
  const others = [...new Set(revisions)].filter((r) => r !== definition.revision).sort((a, b) => b - a);
  if (others.length === 0) return html``;
  const link = (other: number) => html`<a href="${diffHref(definition.name, Math.min(other, definition.revision), Math.max(other, definition.revision))}">compare with r${other}</a>`;
  return html`<p class="small" data-compare>${others.map((other, i) => html`${i > 0 ? ' · ' : ''}${link(other)}`)}</p>`;
}

/**
 * One revision drawn as a graph, with the running tickets that stand at each node (from the board's listing:
 * tickets that ended are not counted), and links to compare it with the other revisions of its name.
 */
export function definitionPage(definition: PinnedDefinition, ticketsAt: Readonly<Record<string, number>>, revisions: readonly number[] = []): SafeHtml {
  const total = Object.values(ticketsAt).reduce((a, b) => a + b, 0);
  return html`<p class="small"><a href="/console/definitions">← definitions</a></p>
<h1>${definition.name} r${definition.revision}</h1>
<p class="muted">${definition.body.description ?? ''} <span class="small">digest <code>${definition.digest.slice(0, 12)}</code> · entry <code>${definition.body.entry}</code> · ${total} running ticket${total === 1 ? '' : 's'} on it (<a href="/console/?definition=${encodeURIComponent(`${definition.name}@${definition.revision}`)}">on the board</a>)</span></p>
${compareLinks(definition, revisions)}
<div class="panel">${graphSvg(layoutDefinition(definition.body, undefined, ticketsAt), `${definition.name} revision ${definition.revision}`)}</div>`;
}
