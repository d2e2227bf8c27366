import express, { type Request, type Response, type Router } from 'express';
import type { BudgetLimits } from '../budgets/token-budget';
import type { Logger } from '../logging/logger';
import type { TicketWorkflowsPort } from '../temporal/ticket-workflows';
import { buildBoard, placeTicket, type Board } from './board/board-groups';
import { filtersQuery, matchesFilters, parseBoardFilters, ticketKeyParam, type BoardFilters } from './board/board-filters';
import { boardTicketOf, type BoardTicket } from './board/board-ticket';
import { builtInDefinitions, rememberingDefinitions, type ConsoleDefinitionsPort } from './console-definitions';
import { ConsoleError, createConsoleResponses, type ConsoleResponses } from './console-responses';
import { registerSignInRoutes } from './console-sign-in-routes';
import { boardFragment, boardPage, boardQueryString, filterChoices, type FilterChoices } from './pages/board-page';
import { definitionPage, definitionsIndex } from './pages/definition-page';
import { definitionDiffPage } from './pages/definition-diff-page';
import { diffDefinitions } from './graph/definition-diff';
import { errorPage } from './pages/message-pages';
import type { LinkTargets } from './pages/ticket-links';
import { ticketFragment, ticketPage, type TicketPageInput } from './pages/ticket-page';
import { readTimeline } from './read-timeline';
import type { ConsoleTicketsPort, TicketListing } from './ticket-listing';

export { safeNext } from './console-sign-in-routes';

export interface ConsoleDeps {
  /** SERVICE_OPERATOR_TOKEN: the console's only credential; unset, the console answers 503 like the read API. */
  operatorToken?: string;
  workflows: Pick<TicketWorkflowsPort, 'execution' | 'timeline'>;
  /** The board's listing from visibility; without it the board answers 503 (ticket pages still work). */
  tickets?: ConsoleTicketsPort;
  /** The definition registry; the built-in definitions when absent. */
  definitions?: ConsoleDefinitionsPort;
  links: LinkTargets;
  budgets: BudgetLimits;
  logger: Logger;
  now?: () => Date;
}

/** Tickets that ended longer ago than this many days leave the board unless `?days=` asks for more. */
export const DEFAULT_BOARD_DAYS = 7;
const MAX_BOARD_DAYS = 90;

const DEFINITION_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const REVISION = /^[1-9][0-9]{0,8}$/;

/** A revision number from the query (`from`, `to` of a comparison). */
function revisionParam(raw: unknown, name: string): number {
  if (raw === undefined || raw === '') throw new ConsoleError(400, 'Bad comparison', `${name} is missing: a comparison is addressed as /console/definitions/<name>/diff?from=<revision>&to=<revision>`);
  if (typeof raw !== 'string') throw new ConsoleError(400, 'Bad comparison', `${name} must be given once`);
  if (!REVISION.test(raw)) throw new ConsoleError(400, 'Bad comparison', `${name} must be a revision number like 3, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** `?all=1`: every card of every group, not only the first ones. */
function allParam(raw: unknown): boolean {
  if (raw === undefined || raw === '') return false;
  if (raw === '1') return true;
  throw new ConsoleError(400, 'Bad filter', `all must be 1 (every card of every group), got ${JSON.stringify(raw)}`);
}

function daysParam(raw: unknown): number {
  if (raw === undefined || raw === '') return DEFAULT_BOARD_DAYS;
  if (typeof raw !== 'string' || !/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_BOARD_DAYS) {
    throw new ConsoleError(400, 'Bad filter', `days must be a whole number from 1 to ${MAX_BOARD_DAYS}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** What the page routes share: one remembering registry and one clock for the whole console. */
interface SharedPageDeps {
  responses: ConsoleResponses;
  definitions: ConsoleDefinitionsPort;
  now: () => Date;
}

/**
 * The console (issue 45): server-rendered pages over the read model, under /console/, behind the operator token.
 * It only reads: GET pages, and a sign-in and sign-out that set or clear the session cookie and nothing else.
 */
export function consoleRouter(deps: ConsoleDeps): Router {
  const router = express.Router();
  const now = deps.now ?? (() => new Date());
  const definitions = rememberingDefinitions(deps.definitions ?? builtInDefinitions());
  const responses = createConsoleResponses(deps);
  const shared: SharedPageDeps = { responses, definitions, now };

  registerSignInRoutes(router, deps, responses);
  // The console never writes: anything but GET past sign-in is refused.
  router.use('/console', (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    res.set('Allow', 'GET, HEAD');
    responses.send(res, 405, 'Read only', errorPage('Read only', `the console only reads; ${req.method} is not answered (commands go to the tracker)`));
  });

  registerBoardRoutes(router, deps, shared);
  registerTicketRoutes(router, deps, shared);
  registerDefinitionRoutes(router, deps, shared);

  router.use('/console', (req: Request, res: Response) => responses.send(res, 404, 'Not found', errorPage('Not found', `the console has no page ${req.path}`)));
  return router;
}

/** The gate kind of each waiting ticket's node, from its pinned definition: one lookup per definition revision. */
async function gateKinds(definitions: ConsoleDefinitionsPort, tickets: readonly BoardTicket[]) {
  const pinned = new Map<string, { name: string; revision: number }>();
  for (const ticket of tickets) if (ticket.status === 'waiting' && ticket.definition) pinned.set(`${ticket.definition.name}@${ticket.definition.revision}`, ticket.definition);
  const bodies = new Map(await Promise.all([...pinned].map(async ([key, { name, revision }]) => [key, await definitions.get(name, revision).catch(() => undefined)] as const)));
  return (ticket: BoardTicket) => {
    if (ticket.status !== 'waiting' || !ticket.definition) return undefined;
    const node = bodies.get(`${ticket.definition.name}@${ticket.definition.revision}`)?.body.nodes[ticket.node];
    return node?.kind === 'gate' ? node.gate : undefined;
  };
}

/** The board of a request's filters, from the listing of the days it asks for. */
function createBoardReader(deps: Pick<ConsoleDeps, 'tickets'>, definitions: ConsoleDefinitionsPort) {
  // What the board makes of one listing, made once per listing and kept with it (a listing is served many times):
  // the filters' choices, and the board of each filter asked for (a few).
  const derived = new WeakMap<TicketListing, { choices: FilterChoices; boards: Map<string, Promise<Board>> }>();
  const derive = (listing: TicketListing) => {
    let made = derived.get(listing);
    if (!made) {
      made = { choices: filterChoices(listing.tickets), boards: new Map() };
      derived.set(listing, made);
    }
    return made;
  };
  const boardOf = (listing: TicketListing, filters: BoardFilters): Promise<Board> => {
    const { boards } = derive(listing);
    const key = filtersQuery(filters);
    let board = boards.get(key);
    if (!board) {
      const shown = listing.tickets.filter((t) => matchesFilters(t, filters));
      board = gateKinds(definitions, shown).then((gateKindOf) => buildBoard(shown, gateKindOf));
      if (boards.size >= 16) boards.delete(boards.keys().next().value!);
      boards.set(key, board);
      board.catch(() => boards.delete(key));
    }
    return board;
  };

  return async (req: Request) => {
    if (!deps.tickets) throw new ConsoleError(503, 'Board unavailable', 'this gateway has no ticket listing (Temporal visibility)');
    const parsed = parseBoardFilters(req.query as Record<string, unknown>);
    if (!parsed.ok) throw new ConsoleError(400, 'Bad filter', parsed.message);
    const days = daysParam(req.query.days);
    const all = allParam(req.query.all);
    const listing = await deps.tickets.list(days);
    return { choices: derive(listing).choices, filters: parsed.filters, days, all, listedAt: listing.listedAt, board: await boardOf(listing, parsed.filters) };
  };
}

function registerBoardRoutes(router: Router, deps: Pick<ConsoleDeps, 'tickets'>, { responses: { send, sendFragment, handle }, definitions, now }: SharedPageDeps): void {
  const readBoard = createBoardReader(deps, definitions);
  router.get('/console/', handle(async (req, res) => {
    const board = await readBoard(req);
    send(res, 200, 'Board', boardPage({ ...board, now: now() }), { live: true });
  }));
  router.get('/console/board', handle(async (req, res) => {
    const { board, filters, days, all, listedAt } = await readBoard(req);
    sendFragment(res, boardFragment(board, now(), { listedAt, all, allHref: `/console/${boardQueryString(filters, days, true)}` }));
  }));
}

type TicketPageDeps = Pick<ConsoleDeps, 'tickets' | 'workflows' | 'links' | 'budgets'>;

async function readTicket(req: Request, deps: TicketPageDeps, { definitions, now }: Pick<SharedPageDeps, 'definitions' | 'now'>): Promise<TicketPageInput> {
  const key = ticketKeyParam(req.params.key as string | undefined);
  if (!key) throw new ConsoleError(400, 'Not a ticket key', `"${String(req.params.key)}" is not a ticket key like PROJ-123`);
  const [listed, view] = await Promise.all([deps.tickets?.get(key), deps.workflows.execution(key)]);
  if (!view && !listed) throw new ConsoleError(404, 'No such ticket', `no workflow for ticket ${key}`);
  const ticket = boardTicketOf(listed ? { ...listed, view: view ?? listed.view } : {
    ticketKey: key, workflowId: view!.workflow_id, runStatus: 'RUNNING', startedAt: view!.started_at, closedAt: null, attributes: { pullRequests: [] }, view,
  });
  const [timeline, definition] = await Promise.all([
    readTimeline(deps.workflows, key),
    ticket.definition ? definitions.get(ticket.definition.name, ticket.definition.revision).catch(() => undefined) : Promise.resolve(undefined),
  ]);
  const gate = definition?.body.nodes[ticket.node];
  return {
    ticket, placement: placeTicket(ticket, gate?.kind === 'gate' ? gate.gate : undefined), workflowId: listed?.workflowId ?? view!.workflow_id,
    view: view ?? listed?.view, timeline, definition, links: deps.links, budgets: deps.budgets, now: now(),
  };
}

function registerTicketRoutes(router: Router, deps: TicketPageDeps, shared: SharedPageDeps): void {
  const { send, sendFragment, handle } = shared.responses;
  router.get('/console/tickets/:key', handle(async (req, res) => {
    const input = await readTicket(req, deps, shared);
    send(res, 200, input.ticket.key, ticketPage(input), { live: true });
  }));
  router.get('/console/tickets/:key/live', handle(async (req, res) => {
    sendFragment(res, ticketFragment(await readTicket(req, deps, shared)));
  }));
}

function registerDefinitionRoutes(router: Router, deps: Pick<ConsoleDeps, 'tickets'>, { responses: { send, handle }, definitions }: SharedPageDeps): void {
  router.get('/console/definitions', handle(async (_req, res) => {
    send(res, 200, 'Definitions', definitionsIndex(await definitions.list()));
  }));
  // Before /:name/:revision, which would take `diff` for a revision.
  router.get('/console/definitions/:name/diff', handle(async (req, res) => {
    const name = String(req.params.name);
    if (!DEFINITION_NAME.test(name)) throw new ConsoleError(400, 'Not a definition', `${JSON.stringify(name)} is not a definition name; a comparison is addressed as /console/definitions/<name>/diff?from=<revision>&to=<revision>`);
    const from = revisionParam(req.query.from, 'from');
    const to = revisionParam(req.query.to, 'to');
    const [older, newer] = await Promise.all([definitions.get(name, from), definitions.get(name, to)]);
    if (!older || !newer) {
      const known = (await definitions.list()).filter((d) => d.name === name).map((d) => d.revision).sort((a, b) => a - b);
      if (known.length === 0) throw new ConsoleError(404, 'No such definition', `there is no definition named ${name}`);
      const missing = [...new Set([older ? [] : [from], newer ? [] : [to]].flat())];
      throw new ConsoleError(404, 'No such revision', `${name} has no revision ${missing.join(' or ')} (its revisions: ${known.map((r) => `r${r}`).join(', ')})`);
    }
    send(res, 200, `${name} r${from} → r${to}`, definitionDiffPage(older, newer, diffDefinitions(older.body, newer.body)));
  }));
  router.get('/console/definitions/:name/:revision', handle(async (req, res) => {
    const name = String(req.params.name);
    const revision = String(req.params.revision);
    if (!DEFINITION_NAME.test(name) || !REVISION.test(revision)) throw new ConsoleError(400, 'Not a definition', 'a definition is addressed as /console/definitions/<name>/<revision>, e.g. /console/definitions/feature/3');
    const [definition, summaries] = await Promise.all([
      definitions.get(name, Number(revision)),
      // Only for the links to compare with other revisions: the page is drawn without them when the list fails.
      definitions.list().catch(() => []),
    ]);
    if (!definition) throw new ConsoleError(404, 'No such definition', `${name} has no revision ${revision}`);
    const ticketsAt: Record<string, number> = {};
    // From the board's kept listing, as old as the board's.
    for (const ticket of deps.tickets ? (await deps.tickets.list(DEFAULT_BOARD_DAYS)).tickets : []) {
      if (ticket.ended || ticket.definition?.name !== definition.name || ticket.definition.revision !== definition.revision) continue;
      ticketsAt[ticket.node] = (ticketsAt[ticket.node] ?? 0) + 1;
    }
    const revisions = summaries.filter((d) => d.name === definition.name).map((d) => d.revision);
    send(res, 200, `${definition.name} r${definition.revision}`, definitionPage(definition, ticketsAt, revisions));
  }));
}
