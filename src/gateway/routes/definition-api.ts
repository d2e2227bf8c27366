import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/logger';
import type { DefinitionsPort } from '../../temporal/temporal-definitions';
import { TemporalUnavailableError } from '../../temporal/temporal-unavailable-error';
import { errorBody } from '../http-errors';
import { requireBearerToken } from '../operator-auth';
import { TICKET_KEY } from '../../ingress/tracker/tracker-webhook-schema';

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** `{to_revision: 3, mapping: {"old": "new"}, apply: true}`; mapping and apply are optional. */
export function parseMigrationBody(body: unknown): Parsed<{ to_revision: number; mapping: Record<string, string>; apply: boolean }> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, message: 'expected a JSON object {"to_revision": N, "mapping": {...}, "apply": false}' };
  const { to_revision: to, mapping = {}, apply = false, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { ok: false, message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (expected to_revision, mapping, apply)` };
  if (typeof to !== 'number' || !Number.isInteger(to) || to < 1) return { ok: false, message: `to_revision must be a positive whole number, got ${JSON.stringify(to)}` };
  if (typeof apply !== 'boolean') return { ok: false, message: `apply must be true or false, got ${JSON.stringify(apply)}` };
  if (mapping === null || typeof mapping !== 'object' || Array.isArray(mapping) || Object.values(mapping).some((v) => typeof v !== 'string')) {
    return { ok: false, message: 'mapping must be an object of node names, old node → node of the new revision' };
  }
  return { ok: true, value: { to_revision: to, mapping: mapping as Record<string, string>, apply } };
}

export interface DefinitionApiDeps {
  definitions?: DefinitionsPort;
  logger: Logger;
  operatorToken?: string;
}

/**
 * The definition registry's read route (DESIGN 6) behind SERVICE_OPERATOR_TOKEN: the built-in and published
 * revisions of every definition, and which one a new ticket pins. Publishing is `service definitions publish`.
 */
export function definitionApiRouter(deps: DefinitionApiDeps): Router {
  const router = express.Router();
  router.use('/api/v1/definitions', requireBearerToken(deps.operatorToken, 'SERVICE_OPERATOR_TOKEN'));

  const handle = (fn: (req: Request, res: Response, definitions: DefinitionsPort) => Promise<void>) => async (req: Request, res: Response) => {
    if (!deps.definitions) return void res.status(503).json(errorBody('routes_disabled', 'this gateway has no connection to the definition registry'));
    try {
      await fn(req, res, deps.definitions);
    } catch (error) {
      if (error instanceof TemporalUnavailableError) {
        deps.logger.warn('definition API could not reach Temporal', { error: error.message });
        res.status(503).json(errorBody('temporal_unavailable', 'the definition registry could not be reached (Temporal or the worker is unavailable); retry later'));
        return;
      }
      deps.logger.error('definition API failed', { error: (error as Error).message });
      res.status(500).json(errorBody('internal_error', (error as Error).message));
    }
  };

  router.get('/api/v1/definitions', handle(async (_req, res, definitions) => {
    res.json({ schema_version: '1.0', definitions: await definitions.list() });
  }));

  // POST /api/v1/workflows/{KEY}/migration {to_revision, mapping?, apply?}: a dry run unless apply is true.
  router.post('/api/v1/workflows/:ticket_key/migration', requireBearerToken(deps.operatorToken, 'SERVICE_OPERATOR_TOKEN'), express.json({ limit: '64kb' }), handle(async (req, res, definitions) => {
    const key = String(req.params.ticket_key).toUpperCase();
    if (!TICKET_KEY.test(key)) return void res.status(400).json(errorBody('invalid_ticket_key', `"${req.params.ticket_key}" is not a ticket key`));
    const parsed = parseMigrationBody(req.body);
    if (!parsed.ok) return void res.status(400).json(errorBody('invalid_request', parsed.message));
    const result = await definitions.migrate(key, { ...parsed.value, requested_by: 'operator-api' });
    if (result.outcome === 'ticket_not_found' || result.outcome === 'revision_not_found') return void res.status(404).json(errorBody('not_found', result.message));
    if (result.outcome !== 'decided') return void res.status(409).json(errorBody('migration_refused', result.message));
    const { decision } = result;
    if (decision.applied) deps.logger.info('ticket migrated by an operator', { key, from: decision.from.revision, to: decision.to.revision, node: decision.target_node });
    if (!decision.dry_run && !decision.applied) {
      return void res.status(409).json({ ...errorBody('migration_refused', `${key} cannot move to ${decision.to.name} r${decision.to.revision}: ${decision.incompatibilities.join('; ')}`), migration: decision });
    }
    res.json({ schema_version: '1.0', migration: decision, versioning: result.versioning });
  }));

  return router;
}
