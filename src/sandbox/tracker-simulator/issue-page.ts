/**
 * The issue's web page, at Jira's `<site>/browse/<KEY>`, where the console (and anyone with the tracker's base
 * address) links a ticket: a plain HTML page with the summary, type, status, labels, parent and links, the
 * description and the comments as text, everything escaped.
 *
 * Who may read it: Jira's web UI needs a login, but a link clicked in a browser carries no Basic credentials, and the
 * sandbox listens on loopback only. So, as the source host's pull request pages do, a request from a loopback address
 * reads without credentials; from anywhere else it needs the Basic credentials the REST API takes. Credentials that
 * are sent must be valid either way.
 */
import type { NextFunction, Request, Response } from 'express';
import { adfToMarkdown } from '../../providers/tracker/adf/adf-to-markdown';
import { escapeHtml } from '../scmhost-simulator/pull-request-page';
import { isLoopbackAddress } from '../loopback-address';
import type { SimIssue, TrackerState } from './tracker-state';

/** Basic credentials as the REST API checks them: any e-mail and token, or exactly these when the simulator has some. */
export type BasicCheck = (email: string, token: string) => boolean;

/** Undefined when the request may read the page; otherwise why not. */
export function issuePageRefusal(req: Pick<Request, 'headers' | 'socket'>, valid: BasicCheck): string | undefined {
  const header = req.headers.authorization ?? '';
  const basic = /^Basic\s+(.+)$/i.exec(header);
  if (header) {
    const decoded = basic ? Buffer.from(basic[1] ?? '', 'base64').toString('utf8') : '';
    const at = decoded.indexOf(':');
    return at > 0 && valid(decoded.slice(0, at), decoded.slice(at + 1)) ? undefined : 'You are not authenticated: the credentials are not valid.';
  }
  if (isLoopbackAddress(req.socket.remoteAddress)) return undefined;
  return 'You are not authenticated: outside loopback, send the Basic credentials of the REST API.';
}

/** `GET /browse/:key`, registered before the REST API's credential check. */
export function issuePageHandler(state: TrackerState, valid: BasicCheck) {
  return (req: Request, res: Response, next: NextFunction) => {
    const key = String(req.params.key ?? '');
    if (!/^[A-Za-z][A-Za-z0-9_]*-[1-9][0-9]*$/.test(key)) return next();
    const refusal = issuePageRefusal(req, valid);
    if (refusal) {
      res.status(401).setHeader('www-authenticate', 'Basic realm="tracker simulator"');
      res.type('text/plain').send(`${refusal}\n`);
      return;
    }
    const issue = state.issues.get(key.toUpperCase());
    if (!issue) {
      res.status(404).type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Issue does not exist</title></head><body><h1>Issue does not exist</h1><p>${escapeHtml(key)} does not exist or you do not have permission to see it.</p></body></html>\n`);
      return;
    }
    res.type('text/html; charset=utf-8').send(issuePage(issue));
  };
}

export function issuePage(issue: SimIssue): string {
  const e = escapeHtml;
  const links = issue.links.map((link) => (link.outwardKey === issue.key ? `${link.type} → ${link.inwardKey}` : `${link.type} ← ${link.outwardKey}`));
  const description = issue.description ? adfToMarkdown(issue.description) : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>[${e(issue.key)}] ${e(issue.summary)} · tracker simulator</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; }
pre { background: #f6f8fa; padding: 1em; overflow-x: auto; white-space: pre-wrap; }
.meta { color: #6e7781; } .label { display: inline-block; padding: 0 .5em; margin-right: .3em; border-radius: .8em; background: #ddf4ff; }
</style>
</head>
<body>
<p>${e(issue.projectKey)} (tracker simulator)</p>
<h1>${e(issue.summary)} <span class="meta">${e(issue.key)}</span></h1>
<p>${e(issue.issueType)} · <strong>${e(issue.status)}</strong> · created ${e(issue.created)} · updated ${e(issue.updated)}</p>
<p>labels: ${issue.labels.length ? issue.labels.map((label) => `<span class="label">${e(label)}</span>`).join('') : '<span class="meta">(none)</span>'}</p>
${issue.parentKey ? `<p>parent: <a href="${e(encodeURIComponent(issue.parentKey))}">${e(issue.parentKey)}</a></p>` : ''}
${links.length ? `<p>links: ${links.map(e).join(', ')}</p>` : ''}
<h2>Description</h2>
<pre>${e(description || '(no description)')}</pre>
<h2>Comments (${issue.comments.length})</h2>
${issue.comments.map((c) => `<p><strong>${e(c.author.displayName ?? c.author.accountId)}</strong> <span class="meta">${e(c.created)} (comment ${e(c.id)})</span></p>\n<pre>${e(adfToMarkdown(c.body))}</pre>`).join('\n')}
</body>
</html>
`;
}
