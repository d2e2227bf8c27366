import { BOARD_GROUPS, GROUP_TITLES, type Board, type PlacedTicket } from '../board/board-groups';
import { filtersQuery, type BoardFilters } from '../board/board-filters';
import type { BoardTicket } from '../board/board-ticket';
import { html, type SafeHtml } from '../html';
import { timeAgo } from './page-shell';

function card({ ticket, placement }: PlacedTicket, now: Date): SafeHtml {
  const definition = ticket.definition ? `${ticket.definition.name} r${ticket.definition.revision}` : 'no pinned definition';
  return html`<article class="card" data-ticket="${ticket.key}" data-group="${placement.group}">
<p><a class="key" href="/console/tickets/${encodeURIComponent(ticket.key)}">${ticket.key}</a> <span class="muted small">${ticket.kind} · ${definition}</span></p>
<p><code>${placement.at}</code> ${timeAgo(placement.since, now)}</p>
${placement.code ? html`<p class="blockcode">${placement.code}</p>` : ''}
<p class="detail">${placement.detail}</p>
${placement.action ? html`<p class="action small" data-action>${placement.action}</p>` : ''}
${ticket.pullRequests.length > 0 ? html`<p class="small muted">${ticket.pullRequests.join(', ')}</p>` : ''}
${ticket.detailed ? '' : html`<p class="small muted">the workflow is at work: details on the next refresh</p>`}
</article>`;
}

/** The four groups with their counts: the part the refresh swaps in. */
export function boardFragment(board: Board, now: Date): SafeHtml {
  return html`<div class="board">${BOARD_GROUPS.map((group) => html`<section class="group ${group}" data-group="${group}" aria-label="${GROUP_TITLES[group]}">
<h2>${GROUP_TITLES[group]} <span class="count" data-count="${group}">${board[group].length}</span></h2>
${board[group].length === 0 ? html`<p class="muted small">none</p>` : board[group].map((placed) => card(placed, now))}
</section>`)}</div>
<p class="muted small">as of <time datetime="${now.toISOString()}">${now.toISOString()}</time></p>`;
}

function options(values: Iterable<string>, chosen: string | undefined): SafeHtml {
  return html`<option value="">all</option>${[...new Set(values)].sort().map((v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${v}</option>`)}`;
}

/** The filter form: a plain GET form, so the filters live in the address and survive a reload and the refresh. */
function filterForm(tickets: readonly BoardTicket[], filters: BoardFilters, days: number): SafeHtml {
  const definition = filters.definition ? `${filters.definition.name}@${filters.definition.revision}` : undefined;
  return html`<form class="filters" method="get" action="/console/">
<label>project<select name="project">${options(tickets.map((t) => t.project), filters.project)}</select></label>
<label>kind<select name="kind">${options(tickets.map((t) => t.kind), filters.kind)}</select></label>
<label>definition<select name="definition">${options(tickets.flatMap((t) => (t.definition ? [`${t.definition.name}@${t.definition.revision}`] : [])), definition)}</select></label>
<label>repository<select name="repository">${options(tickets.flatMap((t) => t.repositories), filters.repository)}</select></label>
<label>ended within (days)<input type="number" name="days" min="1" max="90" value="${days}"></label>
<button type="submit">Filter</button> <a href="/console/">clear</a>
</form>`;
}

export interface BoardPageInput {
  board: Board;
  /** All listed tickets (before filtering): the filters offer their values. */
  tickets: readonly BoardTicket[];
  filters: BoardFilters;
  days: number;
  now: Date;
}

/** The board's page body; `#live` names its fragment with the same filters, so a refresh keeps them. */
export function boardPage(input: BoardPageInput): SafeHtml {
  const query = filtersQuery(input.filters);
  const fragment = `/console/board${query}${query ? '&' : '?'}days=${input.days}`;
  return html`<h1>Board</h1>
${filterForm(input.tickets, input.filters, input.days)}
<div id="live" data-refresh="${fragment}" data-every="5000">${boardFragment(input.board, input.now)}</div>
<noscript><p class="muted small">Reload the page to see changes (live refresh needs script).</p></noscript>`;
}
