import type { PinnedDefinition } from '../../../workflows/built-in-definitions/definition-types';
import type { DefinitionDiff, FieldChange } from '../graph/definition-diff';
import { layoutDiff } from '../graph/definition-layout';
import { graphSvg } from '../graph/graph-svg';
import { html, type SafeHtml } from '../html';

const CHANGE_TEXT = { added: 'added', removed: 'removed', changed: 'changed' } as const;

/** Where the comparison of two revisions of a definition is. */
export function diffHref(name: string, from: number, to: number): string {
  return `/console/definitions/${encodeURIComponent(name)}/diff?from=${from}&to=${to}`;
}

function countsLine(counts: DefinitionDiff['counts']['nodes'], what: string): string {
  return `${what}: ${counts.added} added, ${counts.removed} removed, ${counts.changed} changed`;
}

function fieldLine(change: FieldChange): SafeHtml {
  return html`<li><code>${change.field}</code>: ${change.from === null ? html`<span class="muted">absent</span>` : html`<code class="before">${change.from}</code>`} → ${change.to === null ? html`<span class="muted">absent</span>` : html`<code class="after">${change.to}</code>`}</li>`;
}

function nodesTable(diff: DefinitionDiff, from: PinnedDefinition, to: PinnedDefinition): SafeHtml {
  const rows = diff.nodes.filter((n) => n.change !== 'same');
  if (rows.length === 0) return html`<p class="muted small">no node was added, removed or changed</p>`;
  return html`<table class="diff"><thead><tr><th>node</th><th>change</th><th>kind</th><th>what differs</th></tr></thead><tbody>
${rows.map((n) => html`<tr class="${n.change}" data-node-change="${n.change}" data-node="${n.id}"><td><code>${n.id}</code></td><td><span class="change ${n.change}">${CHANGE_TEXT[n.change as keyof typeof CHANGE_TEXT]}</span></td><td>${n.node.kind}</td>
<td>${n.change === 'changed' ? html`<ul class="fields">${n.fields.map(fieldLine)}</ul>` : n.change === 'added' ? `only in r${to.revision}` : `only in r${from.revision}`}</td></tr>`)}
</tbody></table>`;
}

function edgesTable(diff: DefinitionDiff, from: PinnedDefinition, to: PinnedDefinition): SafeHtml {
  const rows = diff.edges.filter((e) => e.change !== 'same');
  if (rows.length === 0) return html`<p class="muted small">no edge was added, removed or changed</p>`;
  const outcomes = (list: string[]) => (list.length === 0 ? html`<span class="muted">–</span>` : list.join(', '));
  return html`<table class="diff"><thead><tr><th>edge</th><th>change</th><th>outcomes in r${from.revision}</th><th>outcomes in r${to.revision}</th></tr></thead><tbody>
${rows.map((e) => html`<tr class="${e.change}" data-edge-change="${e.change}" data-from="${e.from}" data-to="${e.to}"><td><code>${e.from}</code> → <code>${e.to}</code></td><td><span class="change ${e.change}">${CHANGE_TEXT[e.change as keyof typeof CHANGE_TEXT]}</span></td><td>${outcomes(e.outcomesBefore)}</td><td>${outcomes(e.outcomesAfter)}</td></tr>`)}
</tbody></table>`;
}

/**
 * Two revisions of one definition compared: the union of their graphs drawn with what was added, removed and changed
 * marked, and the same as lists (a changed node with each field that differs). Node ids, fields and outcomes come
 * from published definitions and are escaped like ticket text.
 */
export function definitionDiffPage(from: PinnedDefinition, to: PinnedDefinition, diff: DefinitionDiff): SafeHtml {
  const name = to.name;
  const page = (d: PinnedDefinition) => `/console/definitions/${encodeURIComponent(d.name)}/${d.revision}`;
  return html`<p class="small"><a href="/console/definitions">← definitions</a> · <a href="${page(from)}">${name} r${from.revision}</a> · <a href="${page(to)}">${name} r${to.revision}</a></p>
<h1>${name}: r${from.revision} → r${to.revision}</h1>
<p class="muted small">digests <code>${from.digest.slice(0, 12)}</code> → <code>${to.digest.slice(0, 12)}</code> · <a href="${diffHref(name, to.revision, from.revision)}">the other way round</a></p>
<p data-diff-summary>${diff.identical ? 'The two revisions have the same nodes, edges, entry and description.' : `${countsLine(diff.counts.nodes, 'Nodes')}; ${countsLine(diff.counts.edges, 'edges')}.`}</p>
${diff.entry ? html`<p>The entry node moved: <code>${diff.entry.from}</code> → <code>${diff.entry.to}</code>.</p>` : ''}
${diff.description ? html`<p>The description changed: <span class="muted">${diff.description.from ?? '(none)'}</span> → ${diff.description.to ?? '(none)'}</p>` : ''}
<div class="panel"><p class="legend small"><span class="change added">added in r${to.revision}</span><span class="change removed">removed (only in r${from.revision}), dashed</span><span class="change changed">changed</span><span class="muted">unchanged: plain</span></p>
${graphSvg(layoutDiff(diff, [to.body.entry, from.body.entry]), `${name} revision ${from.revision} compared with revision ${to.revision}`)}</div>
<div class="grid2"><div class="panel"><h2>Nodes</h2>${nodesTable(diff, from, to)}</div>
<div class="panel"><h2>Edges</h2>${edgesTable(diff, from, to)}</div></div>`;
}
