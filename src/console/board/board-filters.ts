import { TICKET_KEY } from '../../ingress/tracker/tracker-webhook-schema';
import type { BoardTicket } from './board-ticket';

/** The board's filters, as query parameters: `?project=PROJ&kind=bug&definition=bug@2&repository=org/app`. */
export interface BoardFilters {
  project?: string;
  kind?: string;
  definition?: { name: string; revision: number };
  repository?: string;
}

export type ParsedFilters = { ok: true; filters: BoardFilters } | { ok: false; message: string };

const FILTER_NAMES = ['project', 'kind', 'definition', 'repository'] as const;
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const REPOSITORY = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+){1,5}$/;

function single(query: Record<string, unknown>, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : null;
}

/** Reads the filters of a request's query; an empty value means no filter. */
export function parseBoardFilters(query: Record<string, unknown>): ParsedFilters {
  const filters: BoardFilters = {};
  for (const name of FILTER_NAMES) {
    const value = single(query, name);
    if (value === undefined) continue;
    if (value === null) return { ok: false, message: `${name} must be given once` };
    if (name === 'project') {
      if (!/^[A-Z][A-Z0-9_]{0,49}$/.test(value.toUpperCase())) return { ok: false, message: `project must be a project key like PROJ, got ${JSON.stringify(value)}` };
      filters.project = value.toUpperCase();
    } else if (name === 'kind') {
      if (!NAME.test(value)) return { ok: false, message: `kind must be a workflow kind like feature or bug, got ${JSON.stringify(value)}` };
      filters.kind = value;
    } else if (name === 'definition') {
      const match = /^([A-Za-z0-9_.-]{1,100})@([1-9][0-9]{0,8})$/.exec(value);
      if (!match) return { ok: false, message: `definition must be name@revision like feature@3, got ${JSON.stringify(value)}` };
      filters.definition = { name: match[1]!, revision: Number(match[2]) };
    } else {
      if (!REPOSITORY.test(value)) return { ok: false, message: `repository must be owner/name, got ${JSON.stringify(value)}` };
      filters.repository = value;
    }
  }
  return { ok: true, filters };
}

export function matchesFilters(ticket: BoardTicket, filters: BoardFilters): boolean {
  if (filters.project && ticket.project !== filters.project) return false;
  if (filters.kind && ticket.kind !== filters.kind) return false;
  if (filters.definition && (ticket.definition?.name !== filters.definition.name || ticket.definition.revision !== filters.definition.revision)) return false;
  if (filters.repository && !ticket.repositories.includes(filters.repository)) return false;
  return true;
}

/** The query string that keeps these filters (for the refresh address and links back to the board). */
export function filtersQuery(filters: BoardFilters): string {
  const params = new URLSearchParams();
  if (filters.project) params.set('project', filters.project);
  if (filters.kind) params.set('kind', filters.kind);
  if (filters.definition) params.set('definition', `${filters.definition.name}@${filters.definition.revision}`);
  if (filters.repository) params.set('repository', filters.repository);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A ticket key from a path, upper-cased; undefined when it is not one. */
export function ticketKeyParam(raw: string | undefined): string | undefined {
  const key = String(raw ?? '').toUpperCase();
  return TICKET_KEY.test(key) ? key : undefined;
}
