import type { BudgetLimits } from '../../budgets/token-budget';
import type { PinnedDefinition } from '../../../workflows/built-in-definitions/definition-types';
import type { ExecutionView } from '../../../workflows/read-model/execution-view';
import type { TimelineEntry } from '../../../workflows/read-model/timeline';
import { GROUP_TITLES, type Placement } from '../board/board-groups';
import type { BoardTicket } from '../board/board-ticket';
import { layoutDefinition } from '../graph/definition-layout';
import { graphSvg } from '../graph/graph-svg';
import { ticketPath } from '../graph/ticket-path';
import { html, type SafeHtml } from '../html';
import { budgetPanel } from './budget-panel';
import { timeAgo } from './page-shell';
import { pullRequestLink, temporalWorkflowUrl, trackerIssueUrl, type LinkTargets } from './ticket-links';
import { timelineTable } from './timeline-table';

export interface TicketPageInput {
  ticket: BoardTicket;
  placement: Placement;
  workflowId: string;
  view: ExecutionView | undefined;
  timeline: { entries: TimelineEntry[]; total: number };
  definition: PinnedDefinition | undefined;
  links: LinkTargets;
  budgets: BudgetLimits;
  now: Date;
}

function link(url: string | undefined, text: string): SafeHtml {
  return url ? html`<a href="${url}" rel="noreferrer noopener">${text}</a>` : html`<span>${text}</span>`;
}

function linksPanel(input: TicketPageInput): SafeHtml {
  const temporal = temporalWorkflowUrl(input.links, input.workflowId);
  return html`<ul class="links">
<li>tracker issue: ${link(trackerIssueUrl(input.links, input.ticket.key), input.ticket.key)}</li>
${input.ticket.pullRequests.map((ref) => html`<li>pull request: ${link(pullRequestLink(input.links, ref), ref)}</li>`)}
<li>Temporal: ${temporal ? link(temporal, input.workflowId) : html`<code>${input.workflowId}</code> <span class="muted small">(set TEMPORAL_UI_URL to link the Temporal UI)</span>`}</li>
<li>JSON: <a href="/api/v1/workflows/${encodeURIComponent(input.ticket.key)}/execution">execution view</a> (needs the bearer header)</li>
</ul>`;
}

function stationRuns(view: ExecutionView): SafeHtml {
  if (view.station_attempts.length === 0) return html`<p class="muted small">no station ran yet</p>`;
  const duration = (a: ExecutionView['station_attempts'][number]) => a.finished_at ? `${Math.round((Date.parse(a.finished_at) - Date.parse(a.started_at)) / 100) / 10} s` : 'running';
  return html`<table><thead><tr><th>station</th><th>visit</th><th>started</th><th>took</th><th>status</th><th>tokens in / out</th></tr></thead><tbody>
${[...view.station_attempts].reverse().map((a) => html`<tr><td><code>${a.node}</code>${a.station !== a.node ? html` <span class="muted small">${a.station}</span>` : ''}</td><td>${a.visit}</td><td><time datetime="${a.started_at}">${a.started_at}</time></td><td>${duration(a)}</td>
<td>${a.status}${a.outcome ? ` → ${a.outcome}` : ''}${a.error ? html`<br><span class="small blockcode">${a.error}</span>` : ''}</td><td>${a.usage ? `${a.usage.input_tokens.toLocaleString('en')} / ${a.usage.output_tokens.toLocaleString('en')}` : '–'}</td></tr>`)}
</tbody></table>`;
}

/**
 * The part of the ticket's page the refresh swaps in: where it stands, its graph, runs, budget and timeline. Each panel
 * scrolls on its own when its content is wider (`data-scroll-key` lets the refresh put that scroll back).
 */
export function ticketFragment(input: TicketPageInput): SafeHtml {
  const { ticket, placement, view } = input;
  const path = ticketPath(input.timeline.entries, ticket.ended && ticket.status !== 'completed' ? null : ticket.node);
  const graph = input.definition
    ? graphSvg(layoutDefinition(input.definition.body, path), `${input.definition.name} revision ${input.definition.revision}, ${ticket.key} at ${ticket.node}`)
    : html`<p class="muted">no definition to draw: ${ticket.definition ? `${ticket.definition.name} r${ticket.definition.revision} was not found in the registry` : 'the ticket runs no pinned definition'}</p>`;
  return html`<div class="panel" data-scroll-key="where" data-group="${placement.group}">
<p><strong>${GROUP_TITLES[placement.group]}</strong> at <code data-current-node>${placement.at}</code> ${timeAgo(placement.since, input.now)}</p>
${placement.code ? html`<p class="blockcode">${placement.code}</p>` : ''}
<p>${placement.detail}</p>
${placement.action ? html`<p class="action">${placement.action}</p>` : ''}
${view && view.permitted_commands.length > 0 ? html`<p class="small muted">accepted now: ${view.permitted_commands.map((c) => html`<code>${c}</code> `)}</p>` : ''}
</div>
<div class="grid2">
<div class="panel" data-scroll-key="graph"><h2>${input.definition ? `${input.definition.name} r${input.definition.revision}` : 'Definition'}</h2>
<p class="legend small muted"><span>■ current node: red</span><span>— taken: blue</span><span>- - detour: orange</span></p>
${graph}
${input.timeline.total > input.timeline.entries.length ? html`<p class="muted small">edges from the newest ${input.timeline.entries.length} timeline entries</p>` : ''}</div>
<div>
<div class="panel" data-scroll-key="links"><h2>Links</h2>${linksPanel(input)}</div>
${view ? html`<div class="panel" data-scroll-key="tokens"><h2>Token spend</h2>${budgetPanel(view.tokens_spent, view.tokens_by_stage, input.budgets)}</div>
<div class="panel" data-scroll-key="runs"><h2>Station runs</h2>${stationRuns(view)}</div>` : ''}
</div></div>
<div class="panel" data-scroll-key="timeline"><h2>Timeline</h2>${timelineTable(input.timeline.entries, input.timeline.total)}</div>`;
}

export function ticketPage(input: TicketPageInput): SafeHtml {
  const { ticket } = input;
  return html`<p class="small"><a href="/console/">← board</a></p>
<h1>${ticket.key} <span class="muted small">${ticket.kind} · ${ticket.definition ? html`<a href="/console/definitions/${encodeURIComponent(ticket.definition.name)}/${ticket.definition.revision}">${ticket.definition.name} r${ticket.definition.revision}</a>` : 'no pinned definition'} · ${ticket.status}</span></h1>
<div id="live" data-refresh="/console/tickets/${encodeURIComponent(ticket.key)}/live" data-every="5000">${ticketFragment(input)}</div>`;
}
