/**
 * The pull request's web page, at the `html_url` the REST API hands out (`<simulator>/<owner>/<repo>/pull/<n>`),
 * which the service posts on the ticket: a plain HTML page with the title, state, branches, description,
 * conversation, commits, files and the diff, everything escaped; `.diff` and `.patch` after the number answer the
 * text, as on GitHub.
 *
 * Who may read it: GitHub's web UI needs a login for a private repository, but a link clicked in a browser carries
 * no token, and the sandbox listens on loopback only. So a request from a loopback address reads without a token;
 * from anywhere else (a simulator started on another interface) it needs one of the simulator's tokens, as the
 * Basic password or a Bearer token. A token that is sent must be valid either way.
 */
import type { Express, NextFunction, Request, Response } from 'express';
import type { ChangedFile, GitCommit } from './bare-repository';
import type { SimPull, SimRepo } from './github-json';
import type { PullRequestGit } from './pull-request-git';
import { p } from './route-params';
import { ScmhostSimError, type ScmhostState } from './scmhost-state';
import { loginOfToken, type TokenLogins } from './git-smart-http';
import { isLoopbackAddress } from '../loopback-address';

export interface PullRequestPageParts {
  state: ScmhostState;
  pulls: PullRequestGit;
  /** Accepted tokens and their logins; any token when unset (as the REST API). */
  tokens?: TokenLogins;
}

function tokenOf(req: Request): string | undefined {
  const header = req.headers.authorization ?? '';
  const basic = /^basic\s+(\S+)$/i.exec(header);
  if (basic) return Buffer.from(basic[1] ?? '', 'base64').toString('utf8').split(':').slice(1).join(':') || undefined;
  return /^(?:bearer|token)\s+(\S+)$/i.exec(header)?.[1];
}

/**
 * Why a simulator's web page may not be read (undefined when it may): a token that was sent must be one of the
 * simulator's; none is needed from loopback, where a link clicked in a browser comes from.
 */
export function webPageRefusal(token: string | undefined, remoteAddress: string | undefined, tokens: TokenLogins | undefined): 'invalid token' | 'no token' | undefined {
  if (token) return loginOfToken(tokens, token) ? undefined : 'invalid token';
  return isLoopbackAddress(remoteAddress) ? undefined : 'no token';
}

/** Undefined when the request may read; otherwise why not. */
export function webReadRefusal(req: Request, tokens: TokenLogins | undefined): string | undefined {
  const refusal = webPageRefusal(tokenOf(req), req.socket.remoteAddress, tokens);
  if (refusal === 'invalid token') return 'Bad credentials: the token is not one of the simulator\'s';
  if (refusal === 'no token') return 'Requires authentication: outside loopback, send a token of the simulator (Authorization: Bearer <token>)';
  return undefined;
}

export function registerPullRequestPages(app: Express, parts: PullRequestPageParts): void {
  const { state, pulls } = parts;
  app.get('/:owner/:repo/pull/:number', async (req: Request, res: Response, next: NextFunction) => {
    const match = /^(\d+)(?:\.(diff|patch))?$/.exec(p(req, 'number'));
    if (!match) return next();
    const refusal = webReadRefusal(req, parts.tokens);
    if (refusal) {
      res.status(401).setHeader('www-authenticate', 'Basic realm="scmhost simulator"');
      res.type('text/plain').send(`${refusal}\n`);
      return;
    }
    const repo = state.repo(p(req, 'owner'), p(req, 'repo'));
    const pull = state.pull(repo, Number(match[1]));
    if (match[2] === 'diff') return void res.type('text/plain; charset=utf-8').send(await pulls.diff(repo, pull));
    if (match[2] === 'patch') return void res.type('text/plain; charset=utf-8').send(await pulls.patch(repo, pull));
    let content: ChangeContent;
    try {
      const read = await pulls.content(repo, pull);
      content = { ...read, diff: await pulls.diff(repo, pull) };
    } catch (error) {
      if (!(error instanceof ScmhostSimError)) throw error;
      content = { problem: error.message };
    }
    res.type('text/html; charset=utf-8').send(pullRequestPage(state, repo, pull, content));
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' })[c] ?? c);
}

function stateOf(pull: SimPull): string {
  if (pull.merged) return 'Merged';
  if (pull.state === 'closed') return 'Closed';
  return pull.draft ? 'Draft' : 'Open';
}

/** A unified diff as HTML text, its file headers, hunk headers, added and removed lines marked for the page's style. */
export function diffHtml(diff: string): string {
  return diff.split('\n').map((line) => {
    const kind = line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git') ? 'file'
      : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : '';
    return kind ? `<span class="${kind}">${escapeHtml(line)}</span>` : escapeHtml(line);
  }).join('\n');
}

/** What a change request's page shows of git: its commits, changed files and diff, or why git could not say. */
export type ChangeContent = { commits: GitCommit[]; files: ChangedFile[]; diff: string } | { problem: string };

/** The commits, files and diff sections of a pull or merge request's page. */
export function changeSections(content: ChangeContent): string {
  const e = escapeHtml;
  if ('problem' in content) return `<p class="problem">${e(content.problem)}</p>`;
  return [
    `<h2>Commits (${content.commits.length})</h2>`,
    `<ul>${content.commits.map((c) => `<li><code>${e(c.sha.slice(0, 7))}</code> ${e(c.message.split('\n')[0] ?? '')} <span class="meta">${e(c.author.name)}, ${e(c.author.date)}</span></li>`).join('')}</ul>`,
    `<h2>Files changed (${content.files.length})</h2>`,
    `<ul>${content.files.map((f) => `<li><code>${e(f.path)}</code> ${e(f.status)} <span class="add">+${f.additions}</span> <span class="del">-${f.deletions}</span></li>`).join('')}</ul>`,
    '<h2>Diff</h2>',
    `<pre class="diff">${diffHtml(content.diff)}</pre>`,
  ].join('\n');
}

/** A simulator's plain web page: `title` (text, escaped here) and `body` (HTML, escaped by the caller). */
export function webPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; }
.state { display: inline-block; padding: .2em .6em; border-radius: 1em; color: #fff; background: #1f883d; }
.state.Merged { background: #8250df; } .state.Closed { background: #cf222e; } .state.Draft { background: #6e7781; }
pre { background: #f6f8fa; padding: 1em; overflow-x: auto; white-space: pre-wrap; }
.add { color: #1a7f37; } .del { color: #cf222e; } .hunk { color: #0969da; } .file { font-weight: bold; } .meta { color: #6e7781; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function pullRequestPage(state: ScmhostState, repo: SimRepo, pull: SimPull, content: ChangeContent): string {
  const fullName = state.fullName(repo);
  const e = escapeHtml;
  const base = `/${fullName}/pull/${pull.number}`;
  const conversation = [
    ...state.issueComments.filter((c) => c.repo === fullName && c.number === pull.number)
      .map((c) => ({ at: c.createdAt, who: c.user.login, what: 'commented', body: c.body })),
    ...state.reviews.filter((r) => r.repo === fullName && r.number === pull.number)
      .map((r) => ({ at: r.submittedAt, who: r.user.login, what: `reviewed: ${r.state.toLowerCase().replace('_', ' ')}`, body: r.body })),
    ...state.reviewComments.filter((c) => c.repo === fullName && c.number === pull.number)
      .map((c) => ({ at: c.createdAt, who: c.user.login, what: `commented on ${c.path}:${c.line}`, body: c.body })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return webPage(`${pull.title} · Pull Request #${pull.number} · ${fullName}`, `<p>${e(fullName)} (source-host simulator)</p>
<h1>${e(pull.title)} <span class="meta">#${pull.number}</span></h1>
<p><span class="state ${stateOf(pull)}">${stateOf(pull)}</span>
${e(pull.user.login)} ${pull.merged ? 'merged' : 'wants to merge'} <code>${e(`${pull.headRepo.owner.login}:${pull.headRef}`)}</code> into <code>${e(pull.baseRef)}</code>
(head <code>${e(pull.headSha.slice(0, 7))}</code>${pull.mergeCommitSha ? `, merge commit <code>${e(pull.mergeCommitSha.slice(0, 7))}</code>` : ''})</p>
<p><a href="${e(base)}.diff">.diff</a> · <a href="${e(base)}.patch">.patch</a></p>
<h2>Description</h2>
<pre>${e(pull.body || '(no description)')}</pre>
<h2>Conversation (${conversation.length})</h2>
${conversation.map((c) => `<p><strong>${e(c.who)}</strong> ${e(c.what)} <span class="meta">${e(c.at)}</span></p>${c.body ? `<pre>${e(c.body)}</pre>` : ''}`).join('\n')}
${changeSections(content)}`);
}
