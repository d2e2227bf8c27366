/** Reading GitHub-style route parameters and paging the answer, shared by the source-host simulator's routes. */
import type { Request, Response } from 'express';
import { ScmhostSimError } from './scmhost-state';

export function p(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : String(value ?? '');
}

/** The pull request number of the route; GitHub answers 404 for anything that is not one. */
export function n(req: Request): number {
  const number = Number(p(req, 'number'));
  if (!Number.isInteger(number) || number < 1) throw new ScmhostSimError(404, 'Not Found');
  return number;
}

/** GitHub paging: per_page (max 100, default 30) and page, with a Link header to the next page. */
export function page<T>(req: Request, res: Response, items: T[]): T[] {
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page ?? 30) || 30));
  const pageNumber = Math.max(1, Number(req.query.page ?? 1) || 1);
  const slice = items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
  if (pageNumber * perPage < items.length) {
    const next = new URL(`http://x${req.originalUrl}`);
    next.searchParams.set('page', String(pageNumber + 1));
    res.setHeader('link', `<${req.protocol}://${req.get('host')}${next.pathname}${next.search}>; rel="next"`);
  }
  return slice;
}
