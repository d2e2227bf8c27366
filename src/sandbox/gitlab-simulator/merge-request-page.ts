/**
 * The merge request's web page, at the `web_url` the REST API hands out (`<simulator>/<project path>/-/merge_requests/<iid>`,
 * under the self-managed path prefix if any), which the service posts on the ticket and the console links: a plain
 * HTML page with the title, state, branches, description, the notes and threads as text, commits, changed files and
 * the diff, everything escaped; `.diff` and `.patch` after the iid answer the text, as GitLab's "Plain diff" and
 * "Email patches" do.
 *
 * Who may read it: the same rule as the source-host simulator's pull request pages (pull-request-page.ts), with the
 * token sent as GitLab takes one, a `PRIVATE-TOKEN` header or `Authorization: Bearer`.
 */
import type { NextFunction, Request, Response } from 'express';
import type { TokenLogins } from '../scmhost-simulator/git-smart-http';
import { changeSections, escapeHtml, webPage, webPageRefusal, type ChangeContent } from '../scmhost-simulator/pull-request-page';
import { discussionsOf, isResolved, type SimDiscussion, type SimNote } from './gitlab-discussions';
import { isDraftTitle } from './gitlab-json';
import { GitLabSimError, type GitLabState, type SimMergeRequest, type SimProject } from './gitlab-simulator';
import type { MergeRequestGit } from './merge-request-git';

export interface MergeRequestPageParts {
  state: GitLabState;
  mergeRequests: MergeRequestGit;
  /** Accepted tokens and their usernames; any token when unset (as the REST API). */
  tokens?: TokenLogins;
  pathPrefix?: string;
}

const REFUSALS = {
  'invalid token': '401 Unauthorized: the token is not one of the simulator\'s',
  'no token': '401 Unauthorized: outside loopback, send a token of the simulator (PRIVATE-TOKEN: <token>)',
};

function tokenOf(req: Request): string | undefined {
  const header = req.headers['private-token'];
  if (typeof header === 'string' && header) return header;
  return /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

/** The project path, iid and text format a web path names, when it is a merge request's page. */
export function mergeRequestPageOf(path: string, pathPrefix = ''): { projectPath: string; iid: number; format?: 'diff' | 'patch' } | undefined {
  if (!path.startsWith(`${pathPrefix}/`)) return undefined;
  const match = /^\/(.+?)\/-\/merge_requests\/(\d+)(?:\.(diff|patch))?$/.exec(path.slice(pathPrefix.length));
  if (!match) return undefined;
  const projectPath = match[1]!.split('/').map((segment) => decodeURIComponent(segment)).join('/');
  return { projectPath, iid: Number(match[2]), ...(match[3] ? { format: match[3] as 'diff' | 'patch' } : {}) };
}

/** A middleware answering merge request pages, to be registered before the REST API's token check. */
export function mergeRequestPages(parts: MergeRequestPageParts) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const page = req.method === 'GET' || req.method === 'HEAD' ? mergeRequestPageOf(req.path, parts.pathPrefix) : undefined;
    if (!page) return next();
    const refusal = webPageRefusal(tokenOf(req), req.socket.remoteAddress, parts.tokens);
    if (refusal) {
      res.status(401).type('text/plain').send(`${REFUSALS[refusal]}\n`);
      return;
    }
    const project = parts.state.projects.get(page.projectPath);
    const mr = project?.mergeRequests.find((m) => m.iid === page.iid);
    if (!project || !mr) {
      res.status(404).type('text/html; charset=utf-8').send(notFoundPage());
      return;
    }
    answer(parts.mergeRequests, project, mr, page.format, res).catch(next);
  };
}

async function answer(git: MergeRequestGit, project: SimProject, mr: SimMergeRequest, format: 'diff' | 'patch' | undefined, res: Response): Promise<void> {
  if (format) {
    try {
      res.type('text/plain; charset=utf-8').send(await (format === 'diff' ? git.diff(project, mr) : git.patch(project, mr)));
    } catch (error) {
      if (!(error instanceof GitLabSimError)) throw error;
      res.status(error.status).type('text/plain').send(`${String(error.body.message)}\n`);
    }
    return;
  }
  let content: ChangeContent;
  try {
    content = await git.content(project, mr);
  } catch (error) {
    if (!(error instanceof GitLabSimError)) throw error;
    content = { problem: String(error.body.message) };
  }
  res.type('text/html; charset=utf-8').send(mergeRequestPage(project, mr, content));
}

/** GitLab's answer to a page that does not exist (or that the reader may not see). */
function notFoundPage(): string {
  return webPage('Not Found', '<h1>404</h1>\n<h2>Page not found</h2>\n<p>Make sure the address is correct and the page has not moved.</p>');
}

function stateOf(mr: SimMergeRequest): string {
  if (mr.state === 'merged') return 'Merged';
  if (mr.state === 'closed') return 'Closed';
  return isDraftTitle(mr.title) ? 'Draft' : 'Open';
}

/** What a note says it did, as GitLab's activity words it. */
function noteAction(note: SimNote, first: boolean): string {
  if (note.system) return note.body;
  const where = note.position ? ` on ${note.position.new_path}:${note.position.new_line ?? note.position.old_line ?? '?'}` : '';
  const did = !first ? 'replied' : note.type ? 'started a thread' : 'commented';
  return `${did}${where}`;
}

function discussionHtml(discussion: SimDiscussion): string {
  const e = escapeHtml;
  const notes = discussion.notes.map((note, index) => {
    const heading = `<p><strong>${e(note.author)}</strong> ${e(noteAction(note, index === 0))} <span class="meta">${e(note.createdAt)}</span></p>`;
    return note.system ? heading : `${heading}<pre>${e(note.body)}</pre>`;
  });
  const resolver = discussion.notes.find((note) => note.resolvedBy)?.resolvedBy;
  return [...notes, ...(isResolved(discussion) ? [`<p class="meta">Thread resolved by ${e(resolver ?? '?')}</p>`] : [])].join('\n');
}

export function mergeRequestPage(project: SimProject, mr: SimMergeRequest, content: ChangeContent): string {
  const e = escapeHtml;
  const source = mr.sourceProject ? `${mr.sourceProject.path}:${mr.sourceBranch}` : mr.sourceBranch;
  const head = (mr.sourceProject ?? project).branches.get(mr.sourceBranch);
  const discussions = discussionsOf(mr.notes);
  return webPage(`${mr.title} (!${mr.iid}) · Merge requests · ${project.path}`, `<p>${e(project.path)} (GitLab simulator)</p>
<h1>${e(mr.title)} <span class="meta">!${mr.iid}</span></h1>
<p><span class="state ${stateOf(mr)}">${stateOf(mr)}</span>
${e(mr.author)} requested to merge <code>${e(source)}</code> into <code>${e(mr.targetBranch)}</code>
(${head ? `head <code>${e(head.slice(0, 8))}</code>` : 'no source branch'}${mr.mergeCommitSha ? `, merged by ${e(mr.mergedBy ?? '?')} in <code>${e(mr.mergeCommitSha.slice(0, 8))}</code>` : ''})</p>
<p><a href="${mr.iid}.diff">Plain diff</a> · <a href="${mr.iid}.patch">Email patches</a></p>
<h2>Description</h2>
<pre>${e(mr.description || '(no description)')}</pre>
<h2>Activity (${mr.notes.length})</h2>
${discussions.map(discussionHtml).join('\n')}
${changeSections(content)}`);
}
