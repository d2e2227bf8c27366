import { BOARD_GROUPS, GROUP_TITLES, type Board, type PlacedTicket } from '../board/board-groups';
import { filtersQuery, type BoardFilters } from '../board/board-filters';
import type { BoardTicket } from '../board/board-ticket';
import { html, type SafeHtml } from '../html';
import { timeAgo } from './page-shell';

function card({ ticket, placement }: PlacedTicket, now: Date): SafeHtml {
  const definition = ticket.definition ? `${ticket.definition.name} r${ticket.definition.revision}` : 'no pinned definition';
  // What the ticket has cost so far, beside what it is: the team lead's "what has each cost" without opening it.
  const spent = ticket.tokensSpent === null ? '' : ` · ${ticket.tokensSpent.toLocaleString('en')} tokens`;
  return html`<article class="card" data-ticket="${ticket.key}" data-group="${placement.group}">
<p><a class="key" href="/console/tickets/${encodeURIComponent(ticket.key)}">${ticket.key}</a> <span class="muted small">${ticket.kind} · ${definition}${spent}</span></p>
<p><code>${placement.at}</code> ${timeAgo(placement.since, now)}</p>
${placement.code ? html`<p class="blockcode">${placement.code}</p>` : ''}
<p class="detail">${placement.detail}</p>
${placement.action ? html`<p class="action small" data-action>${placement.action}</p>` : ''}
${ticket.pullRequests.length > 0 ? html`<p class="small muted">${ticket.pullRequests.join(', ')}</p>` : ''}
${ticket.detailed ? '' : html`<p class="small muted">the workflow is at work: details on the next refresh</p>`}
</article>`;
}

/** Cards a group shows unless the board is asked for all of them (`?all=1`): a page stays small at 10,000 tickets. */
export const CARDS_PER_GROUP = 100;

export interface BoardView {
  /** When the tickets were listed from visibility (the listing is kept a few seconds, see ListingCache). */
  listedAt: Date;
  /** Every card of every group, not only the first CARDS_PER_GROUP. */
  all: boolean;
  /** The board's address with these filters and all cards: where "show all" leads. */
  allHref: string;
}

/** The four groups with their counts: the part the refresh swaps in. */
export function boardFragment(board: Board, now: Date, view: BoardView): SafeHtml {
  const listedAgo = Math.max(0, Math.round((now.getTime() - view.listedAt.getTime()) / 1000));
  return html`<div class="board">${BOARD_GROUPS.map((group) => {
    const placed = board[group];
    const shown = view.all ? placed : placed.slice(0, CARDS_PER_GROUP);
    return html`<section class="group ${group}" data-group="${group}" aria-label="${GROUP_TITLES[group]}">
<h2>${GROUP_TITLES[group]} <span class="count" data-count="${group}">${placed.length}</span></h2>
${placed.length === 0 ? html`<p class="muted small">none</p>` : shown.map((p) => card(p, now))}
${shown.length < placed.length ? html`<p class="small" data-more="${group}">the first ${shown.length} of ${placed.length}: <a href="${view.allHref}">show all ${placed.length}</a></p>` : ''}
</section>`;
  })}</div>
<p class="muted small">as of <time datetime="${now.toISOString()}">${now.toISOString()}</time>; tickets as Temporal listed them <time data-listed-at="${view.listedAt.toISOString()}" datetime="${view.listedAt.toISOString()}">${listedAgo} s</time> before (read again every few seconds)</p>`;
}

/** The values the filter form offers, from every listed ticket (made once per listing: see the router). */
export interface FilterChoices {
  projects: string[];
  kinds: string[];
  definitions: string[];
  repositories: string[];
}

export function filterChoices(tickets: readonly BoardTicket[]): FilterChoices {
  const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
  return {
    projects: sorted(tickets.map((t) => t.project)),
    kinds: sorted(tickets.map((t) => t.kind)),
    definitions: sorted(tickets.flatMap((t) => (t.definition ? [`${t.definition.name}@${t.definition.revision}`] : []))),
    repositories: sorted(tickets.flatMap((t) => t.repositories)),
  };
}

function options(values: readonly string[], chosen: string | undefined): SafeHtml {
  return html`<option value="">all</option>${values.map((v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${v}</option>`)}`;
}

/** The filter form: a plain GET form, so the filters live in the address and survive a reload and the refresh. */
function filterForm(choices: FilterChoices, filters: BoardFilters, days: number, all: boolean): SafeHtml {
  const definition = filters.definition ? `${filters.definition.name}@${filters.definition.revision}` : undefined;
  return html`<form class="filters" method="get" action="/console/">
<label>project<select name="project">${options(choices.projects, filters.project)}</select></label>
<label>kind<select name="kind">${options(choices.kinds, filters.kind)}</select></label>
<label>definition<select name="definition">${options(choices.definitions, definition)}</select></label>
<label>repository<select name="repository">${options(choices.repositories, filters.repository)}</select></label>
<label>ended within (days)<input type="number" name="days" min="1" max="90" value="${days}"></label>
${all ? html`<input type="hidden" name="all" value="1">` : ''}<button type="submit">Filter</button> <a href="/console/">clear</a>
</form>`;
}

export interface BoardPageInput extends Omit<BoardView, 'allHref'> {
  board: Board;
  /** What the filters offer: the values of all listed tickets (before filtering). */
  choices: FilterChoices;
  filters: BoardFilters;
  days: number;
  now: Date;
}

/** The query of the board's addresses: the filters, the window of days and, when asked, all cards. */
export function boardQueryString(filters: BoardFilters, days: number, all: boolean): string {
  const query = filtersQuery(filters);
  return `${query}${query ? '&' : '?'}days=${days}${all ? '&all=1' : ''}`;
}

/** The board's page body; `#live` names its fragment with the same filters, so a refresh keeps them. */
export function boardPage(input: BoardPageInput): SafeHtml {
  const fragment = `/console/board${boardQueryString(input.filters, input.days, input.all)}`;
  const allHref = `/console/${boardQueryString(input.filters, input.days, true)}`;
  return html`<h1>Board</h1>
${filterForm(input.choices, input.filters, input.days, input.all)}
<div id="live" data-refresh="${fragment}" data-every="5000">${boardFragment(input.board, input.now, { listedAt: input.listedAt, all: input.all, allHref })}</div>
<noscript><p class="muted small">Reload the page to see changes (live refresh needs script).</p></noscript>`;
}
