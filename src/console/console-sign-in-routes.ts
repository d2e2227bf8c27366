import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { ConsoleResponses } from './console-responses';
import { checkCredential, clearedSessionCookie, sameSecret, sessionCookie } from './console-session';
import { errorPage, loginPage } from './pages/message-pages';

/** Where to go after signing in: a console address of this host only (no `//host`, no scheme). */
export function safeNext(raw: unknown): string {
  return typeof raw === 'string' && /^\/console\/[A-Za-z0-9/_@.?&=%+-]*$/.test(raw) && !raw.includes('//') ? raw : '/console/';
}

/**
 * The operator token guards the whole console: registered before every page, with the sign-in and sign-out ahead of
 * the credential check so that they answer without one.
 */
export function registerSignInRoutes(router: Router, deps: { readonly operatorToken?: string }, { send }: Pick<ConsoleResponses, 'send'>): void {
  router.use('/console', (req: Request, res: Response, next: NextFunction) => {
    if (!deps.operatorToken) return send(res, 503, 'Console disabled', errorPage('Console disabled', 'SERVICE_OPERATOR_TOKEN is not set: the console is disabled'), { signedIn: false });
    next();
  });

  router.get('/console/login', (req, res) => send(res, 200, 'Sign in', loginPage(undefined, safeNext(req.query.next)), { signedIn: false }));
  router.post('/console/login', express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 4 }), (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const token = typeof body.token === 'string' ? body.token.trim() : '';
    if (!token || !sameSecret(token, deps.operatorToken!)) {
      return send(res, 401, 'Sign in', loginPage('That is not the operator token of this service.', safeNext(body.next)), { signedIn: false });
    }
    res.status(303).set('Set-Cookie', sessionCookie(deps.operatorToken!, req.secure)).set('Cache-Control', 'no-store').location(safeNext(body.next)).end();
  });
  router.post('/console/logout', (req, res) => {
    res.status(303).set('Set-Cookie', clearedSessionCookie()).set('Cache-Control', 'no-store').location('/console/login').end();
  });

  router.use('/console', (req: Request, res: Response, next: NextFunction) => {
    const credential = checkCredential({ authorization: req.get('authorization'), cookie: req.get('cookie') }, deps.operatorToken!);
    if (credential.ok) return next();
    res.set('WWW-Authenticate', 'Bearer');
    send(res, 401, 'Sign in', loginPage(credential.reason, safeNext(req.method === 'GET' ? req.originalUrl : undefined)), { signedIn: false });
  });
}
