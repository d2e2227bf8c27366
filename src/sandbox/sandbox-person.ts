import { adfToMarkdown } from '../providers/tracker/adf/adf-to-markdown';
import { commitFile } from './person-git';
import { sandboxIdentity, type SandboxIdentity } from './sandbox-identity';
import { pullRequestOf, workSources, type IssueBrief } from './ticket-work';
import { readSandboxSettings, sandboxSettingsFile, SANDBOX_GITLAB_PROJECT, SANDBOX_GITLAB_TRACKER_PROJECT, SANDBOX_PROJECT, SANDBOX_REPOSITORY } from './sandbox-settings';

/** `service sandbox ...` could not reach a running sandbox; the message says what to start. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
}

/** The simulator answered with an error (an unknown ticket, an invalid label): its own message, unchanged. */
export class SandboxRequestError extends Error {
  override readonly name = 'SandboxRequestError';
}

/** A ticket as a person reads it in the sandbox: its fields, its comments as text, and its pull requests. */
export interface TicketView {
  key: string;
  summary: string;
  type: string;
  status: string;
  labels: string[];
  /** Issue links as Jira words them from this ticket's side ("relates to SBX-1"). */
  links: string[];
  comments: Array<{ id: string; author: string; created: string; text: string }>;
  pulls: Array<{
    repository: string; number: number; title: string; state: 'open' | 'closed' | 'merged'; draft: boolean;
    head: string; base: string; url: string;
    /** The diff (git's, from the simulator), or why it could not be read. */
    diff?: string; diffProblem?: string;
    /** Set when the pull request is another ticket's that carries this one's work (ticket-work.ts): why it is shown. */
    carries?: string;
  }>;
  /** The other tickets whose pull requests carry this one's work (a fix Task's bug, a task's feature). */
  workOf?: string[];
}

export interface NewTicket {
  summary: string;
  type: string;
  description?: string;
  labels: string[];
  /** The tracker project: SBX (delivered to GitHub, the default) or GLB (delivered to GitLab). */
  project?: string;
}

/** GitHub check conclusions as GitLab's commit statuses, for `service sandbox check` on a GitLab ticket. */
const GITLAB_STATUS_OF: Readonly<Record<string, string>> = { success: 'success', failure: 'failed', cancelled: 'canceled', skipped: 'skipped', timed_out: 'failed' };

/** Whether a ticket's work goes to the sandbox's GitLab project (the tickets of tracker project GLB). */
export function isGitLabTicket(key: string): boolean {
  return key.toUpperCase().startsWith(`${SANDBOX_GITLAB_TRACKER_PROJECT}-`);
}

/** What a person calls the ticket's change where it lives: `pull request #1` on GitHub, `merge request !1` on GitLab. */
export function changeRequestName(key: string, number: number): string {
  return isGitLabTicket(key) ? `merge request !${number}` : `pull request #${number}`;
}

/**
 * What a person does in the tracker and on the source host, done over the simulators' REST APIs (and git, for a
 * push) so that the same signed webhooks reach the service as when someone clicks: by default as pat@example.com in
 * the tracker and octo-reviewer on the source host, with `as` as that person (sandbox-identity.ts). The addresses
 * come from `<data dir>/sandbox/sandbox.json`, which `service dev --sandbox` writes.
 */
export class SandboxPerson {
  private constructor(private readonly urls: { tracker: string; scmhost: string; gitlab?: string }, readonly identity: SandboxIdentity) {}

  static async connect(stateDir: string, options: { as?: string } = {}): Promise<SandboxPerson> {
    const settings = readSandboxSettings(stateDir);
    const start = 'start it with `npm run dev -- --sandbox` (or `service dev --sandbox`), with the same --data-dir';
    if (!settings?.urls.tracker) throw new SandboxUnavailableError(`no sandbox has run with this data directory (${sandboxSettingsFile(stateDir)} is missing): ${start}`);
    const person = new SandboxPerson(settings.urls, sandboxIdentity(options.as, settings.secrets));
    try {
      await fetch(`${settings.urls.tracker}/rest/api/3/myself`, { headers: person.trackerHeaders(), signal: AbortSignal.timeout(5_000) });
    } catch {
      throw new SandboxUnavailableError(`the sandbox's tracker at ${settings.urls.tracker} does not answer: ${start}`);
    }
    return person;
  }

  private trackerHeaders(): Record<string, string> {
    // The sandbox's tracker takes any API token: the e-mail says who acts.
    return { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${this.identity.email}:sandbox`).toString('base64')}` };
  }

  private async callText(url: string, init: RequestInit): Promise<string> {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    const text = await response.text();
    if (!response.ok) throw new SandboxRequestError(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
    return text;
  }

  private async call(url: string, init: RequestInit): Promise<unknown> {
    return jsonOf(await this.callText(url, init));
  }

  private tracker(path: string, method: string, body?: unknown): Promise<unknown> {
    return this.call(`${this.urls.tracker}/rest/api/3${path}`, { method, headers: this.trackerHeaders(), body: body === undefined ? undefined : JSON.stringify(body) });
  }

  private scmhost(path: string, method: string, body?: unknown): Promise<unknown> {
    const headers = { 'content-type': 'application/json', authorization: `token ${this.identity.scmhostToken}`, accept: 'application/vnd.github+json' };
    return this.call(`${this.urls.scmhost}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  private async gitlab(path: string, method: string, body?: unknown): Promise<unknown> {
    return jsonOf(await this.gitlabText(path, method, body));
  }

  /** A call to the sandbox's GitLab project's REST API, answered as text (raw_diffs is plain text). */
  private gitlabText(path: string, method = 'GET', body?: unknown): Promise<string> {
    if (!this.urls.gitlab) throw new SandboxUnavailableError('this sandbox was started by a build without GitLab: restart `service dev --sandbox`');
    const headers = { 'content-type': 'application/json', 'private-token': this.identity.scmhostToken };
    return this.callText(`${this.urls.gitlab}/api/v4/projects/${encodeURIComponent(SANDBOX_GITLAB_PROJECT)}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** The ticket's open merge request on the sandbox's GitLab project (branch `service/<key>`, or `[KEY]` in the title). */
  private async openMergeRequest(key: string): Promise<{ iid: number; sha: string; source_branch: string }> {
    const open = await this.gitlab('/merge_requests?state=opened&per_page=100', 'GET') as Array<{ iid: number; title: string; sha: string; source_branch: string }>;
    const mr = open.find((m) => m.source_branch.toLowerCase() === `service/${key.toLowerCase()}` || m.title.includes(`[${key}]`));
    if (!mr) throw new SandboxRequestError(`${key} has no open merge request in ${SANDBOX_GITLAB_PROJECT} yet: the service opens one when the ticket reaches implementation`);
    return mr;
  }

  /** The merge requests of the GitLab project that carry the work of `sources`, as a person sees them listed, with their diffs when asked. */
  private async mergeRequestsCarrying(sources: ReturnType<typeof workSources>, options: { diffs: boolean }): Promise<TicketView['pulls']> {
    type Mr = { iid: number; title: string; state: 'opened' | 'closed' | 'merged' | 'locked'; draft?: boolean; web_url: string; source_branch: string; target_branch: string };
    const all = await this.gitlab('/merge_requests?state=all&per_page=100&sort=asc', 'GET') as Mr[];
    const views: TicketView['pulls'] = [];
    for (const mr of all) {
      const source = sources.find((s) => (!s.repository || s.repository.toLowerCase() === SANDBOX_GITLAB_PROJECT) && pullRequestOf(s.key, { head: mr.source_branch, title: mr.title }));
      if (!source) continue;
      views.push({
        repository: SANDBOX_GITLAB_PROJECT, number: mr.iid, title: mr.title, state: mr.state === 'merged' ? 'merged' as const : mr.state === 'opened' ? 'open' as const : 'closed' as const,
        draft: mr.draft ?? false, head: mr.source_branch, base: mr.target_branch, url: mr.web_url,
        ...(source.note ? { carries: source.note } : {}),
        ...(options.diffs ? await this.diffOrProblem(() => this.gitlabText(`/merge_requests/${mr.iid}/raw_diffs`)) : {}),
      });
    }
    return views;
  }

  /** A change request's diff as `show` prints it, or why the source host would not give it. */
  private async diffOrProblem(read: () => Promise<string>): Promise<{ diff: string } | { diffProblem: string }> {
    try {
      return { diff: await read() };
    } catch (error) {
      if (!(error instanceof SandboxRequestError)) throw error;
      return { diffProblem: error.message };
    }
  }

  /** A ticket's key, type, summary and parent, for finding whose pull requests carry its work. */
  private async brief(key: string): Promise<IssueBrief & { parent?: string }> {
    const issue = await this.tracker(`/issue/${encodeURIComponent(key)}?fields=summary,issuetype,parent`, 'GET') as {
      key: string; fields: { summary?: string; issuetype?: { name?: string }; parent?: { key?: string } };
    };
    return { key: issue.key, type: issue.fields.issuetype?.name ?? '', summary: issue.fields.summary ?? '', parent: issue.fields.parent?.key };
  }

  /**
   * Reads a ticket the way a person looks at it: fields and comments from the tracker, and the pull requests that
   * carry its work with their diffs from the source host: its own (`service/<key>`, or `[KEY]` in the title), and
   * for a ticket the service delivers in another's, that one's (ticket-work.ts: a fix Task's bug, a task's feature).
   */
  async readTicket(key: string, options: { diffs: boolean }): Promise<TicketView> {
    const issueKey = encodeURIComponent(key);
    type Link = { type?: { name?: string; inward?: string; outward?: string }; inwardIssue?: { key?: string }; outwardIssue?: { key?: string } };
    const issue = await this.tracker(`/issue/${issueKey}?fields=summary,issuetype,status,labels,issuelinks,parent`, 'GET') as {
      key: string; fields: { summary?: string; issuetype?: { name?: string }; status?: { name?: string }; labels?: string[]; issuelinks?: Link[]; parent?: { key?: string } };
    };
    const links = (issue.fields.issuelinks ?? []).map((link) => (link.outwardIssue?.key
      ? `${link.type?.outward ?? 'links to'} ${link.outwardIssue.key}`
      : `${link.type?.inward ?? 'is linked from'} ${link.inwardIssue?.key ?? '?'}`));
    type Comment = { id: string; author?: { displayName?: string; accountId?: string }; created: string; body: unknown };
    const comments: Comment[] = [];
    for (let startAt = 0; ;) {
      const page = await this.tracker(`/issue/${issueKey}/comment?startAt=${startAt}&maxResults=100`, 'GET') as { total: number; comments: Comment[] };
      comments.push(...page.comments);
      startAt += page.comments.length;
      if (page.comments.length === 0 || startAt >= page.total) break;
    }
    // Whose pull requests carry this ticket's work: the tickets above it, and those it relates to (a fix Task's bug).
    const ancestors: IssueBrief[] = [];
    for (let parent = issue.fields.parent?.key; parent && ancestors.length < 3 && !ancestors.some((a) => a.key === parent);) {
      const above = await this.brief(parent);
      ancestors.push(above);
      parent = above.parent;
    }
    const relatedKeys = (issue.fields.issuelinks ?? []).filter((link) => link.type?.name === 'Relates')
      .map((link) => link.outwardIssue?.key ?? link.inwardIssue?.key).filter((k): k is string => Boolean(k)).slice(0, 10);
    const related = await Promise.all(relatedKeys.map((k) => this.brief(k)));
    const sources = workSources({ key: issue.key, type: issue.fields.issuetype?.name ?? '', summary: issue.fields.summary ?? '' }, ancestors, related);
    type Pull = { number: number; title: string; state: 'open' | 'closed'; draft?: boolean; merged_at: string | null; html_url: string; head: { ref: string }; base: { ref: string } };
    const all = isGitLabTicket(issue.key) ? [] : await this.scmhost(`/repos/${SANDBOX_REPOSITORY}/pulls?state=all&per_page=100&direction=asc`, 'GET') as Pull[];
    const carrying = all.flatMap((pull) => {
      const source = sources.find((s) => (!s.repository || s.repository.toLowerCase() === SANDBOX_REPOSITORY) && pullRequestOf(s.key, { head: pull.head.ref, title: pull.title }));
      return source ? [{ pull, source }] : [];
    });
    const pulls: TicketView['pulls'] = [];
    for (const { pull, source } of carrying) {
      const view: TicketView['pulls'][number] = {
        repository: SANDBOX_REPOSITORY, number: pull.number, title: pull.title,
        state: pull.merged_at ? 'merged' : pull.state, draft: pull.draft ?? false, head: pull.head.ref, base: pull.base.ref, url: pull.html_url,
        ...(source.note ? { carries: source.note } : {}),
      };
      if (options.diffs) {
        const headers = { authorization: `token ${this.identity.scmhostToken}`, accept: 'application/vnd.github.diff' };
        Object.assign(view, await this.diffOrProblem(() => this.callText(`${this.urls.scmhost}/repos/${SANDBOX_REPOSITORY}/pulls/${pull.number}`, { method: 'GET', headers })));
      }
      pulls.push(view);
    }
    if (isGitLabTicket(issue.key)) pulls.push(...await this.mergeRequestsCarrying(sources, options));
    return {
      key: issue.key,
      summary: issue.fields.summary ?? '',
      type: issue.fields.issuetype?.name ?? '',
      status: issue.fields.status?.name ?? '',
      labels: issue.fields.labels ?? [],
      links,
      comments: comments.map((c) => ({ id: c.id, author: c.author?.displayName ?? c.author?.accountId ?? 'unknown', created: c.created, text: adfToMarkdown(c.body) })),
      pulls,
      workOf: [...new Set(sources.filter((s) => s.key !== issue.key).map((s) => s.key))],
    };
  }

  async createTicket(ticket: NewTicket): Promise<string> {
    const fields = {
      project: { key: ticket.project ?? SANDBOX_PROJECT },
      issuetype: { name: ticket.type },
      summary: ticket.summary,
      labels: ticket.labels,
      ...(ticket.description ? { description: adfParagraph(ticket.description) } : {}),
    };
    const created = await this.tracker('/issue', 'POST', { fields }) as { key: string };
    return created.key;
  }

  async comment(key: string, text: string): Promise<string> {
    const created = await this.tracker(`/issue/${encodeURIComponent(key)}/comment`, 'POST', { body: adfParagraph(text) }) as { id: string };
    return created.id;
  }

  async label(key: string, label: string, remove: boolean): Promise<void> {
    await this.tracker(`/issue/${encodeURIComponent(key)}`, 'PUT', { update: { labels: [remove ? { remove: label } : { add: label }] } });
  }

  /** The ticket's open pull request (branch `service/<key>`, or `[KEY]` in the title). */
  private async openPullRequest(key: string): Promise<{ number: number; head: { sha: string } }> {
    const pulls = await this.scmhost(`/repos/${SANDBOX_REPOSITORY}/pulls?state=open&per_page=100`, 'GET') as Array<{ number: number; title: string; head: { ref: string; sha: string } }>;
    const pull = pulls.find((p) => p.head.ref.toLowerCase() === `service/${key.toLowerCase()}` || p.title.includes(`[${key}]`));
    if (!pull) throw new SandboxRequestError(`${key} has no open pull request in ${SANDBOX_REPOSITORY} yet: the service opens one when the ticket reaches implementation`);
    return pull;
  }

  /**
   * Pushes a commit of one file to the repository's default branch, as a person who works on main does (and so,
   * for a file a ticket's branch changes too, a conflict the source host then reports on its pull request).
   */
  async commitToMain(path: string, text: string, message?: string): Promise<{ sha: string; branch: string }> {
    const repository = await this.scmhost(`/repos/${SANDBOX_REPOSITORY}`, 'GET') as { default_branch: string };
    const branch = repository.default_branch;
    const sha = await commitFile({
      remote: `${this.urls.scmhost}/${SANDBOX_REPOSITORY}.git`, token: this.identity.scmhostToken, branch, path,
      content: text.endsWith('\n') ? text : `${text}\n`, message: message ?? `Edit ${path}`,
      author: { name: this.identity.login, email: this.identity.email },
    });
    return { sha, branch };
  }

  /** Approves the ticket's pull request (as the reviewer, or the person of `--as`). */
  async approvePullRequest(key: string): Promise<number> {
    if (isGitLabTicket(key)) {
      const mr = await this.openMergeRequest(key);
      await this.gitlab(`/merge_requests/${mr.iid}/approve`, 'POST', {});
      return mr.iid;
    }
    const pull = await this.openPullRequest(key);
    await this.scmhost(`/repos/${SANDBOX_REPOSITORY}/pulls/${pull.number}/reviews`, 'POST', { event: 'APPROVE', body: 'Approved in the sandbox.' });
    return pull.number;
  }

  /** Asks for changes on the ticket's pull request as the reviewer (or the person of `--as`); with `line`, as a comment on that line of a file. */
  async requestChanges(key: string, review: { body: string; line?: { path: string; line: number; body: string } }): Promise<number> {
    if (isGitLabTicket(key)) {
      // GitLab has no "request changes": a note on the merge request, or a thread on a line of its diff.
      const { iid } = await this.openMergeRequest(key);
      if (!review.line) {
        await this.gitlab(`/merge_requests/${iid}/notes`, 'POST', { body: review.body });
        return iid;
      }
      const refs = (await this.gitlab(`/merge_requests/${iid}`, 'GET') as { diff_refs: { base_sha: string; start_sha: string; head_sha: string } }).diff_refs;
      await this.gitlab(`/merge_requests/${iid}/discussions`, 'POST', {
        body: review.line.body,
        position: { position_type: 'text', ...refs, new_path: review.line.path, old_path: review.line.path, new_line: review.line.line },
      });
      return iid;
    }
    const pull = await this.openPullRequest(key);
    await this.scmhost(`/repos/${SANDBOX_REPOSITORY}/pulls/${pull.number}/reviews`, 'POST', {
      event: 'REQUEST_CHANGES', body: review.body, ...(review.line ? { comments: [review.line] } : {}),
    });
    return pull.number;
  }

  /** Merges the ticket's pull request as the reviewer or the person of `--as` (what a person does on the source host). */
  async mergePullRequest(key: string): Promise<number> {
    if (isGitLabTicket(key)) {
      const mr = await this.openMergeRequest(key);
      await this.gitlab(`/merge_requests/${mr.iid}/merge`, 'PUT', { sha: mr.sha });
      return mr.iid;
    }
    const pull = await this.openPullRequest(key);
    await this.scmhost(`/repos/${SANDBOX_REPOSITORY}/pulls/${pull.number}/merge`, 'PUT', {});
    return pull.number;
  }

  /** Reports a finished CI check on the head of the ticket's pull request, as a CI app would. */
  async reportCheck(key: string, check: { name: string; conclusion: string; summary?: string }): Promise<{ number: number; sha: string }> {
    if (isGitLabTicket(key)) {
      const status = GITLAB_STATUS_OF[check.conclusion];
      if (!status) throw new SandboxRequestError(`GitLab has no pipeline that ends "${check.conclusion}": use success, failure, cancelled or skipped`);
      const mr = await this.openMergeRequest(key);
      await this.gitlab(`/statuses/${mr.sha}`, 'POST', { state: status, ref: mr.source_branch, name: check.name, description: check.summary ?? `${check.name}: ${check.conclusion}` });
      return { number: mr.iid, sha: mr.sha };
    }
    const pull = await this.openPullRequest(key);
    await this.scmhost(`/repos/${SANDBOX_REPOSITORY}/check-runs`, 'POST', {
      name: check.name, head_sha: pull.head.sha, status: 'completed', conclusion: check.conclusion, output: { summary: check.summary ?? `${check.name}: ${check.conclusion}` },
    });
    return { number: pull.number, sha: pull.head.sha };
  }
}

function jsonOf(text: string): unknown {
  return text ? JSON.parse(text) as unknown : undefined;
}

function adfParagraph(text: string) {
  return { type: 'doc', version: 1, content: text.split(/\n{2,}/).map((paragraph) => ({ type: 'paragraph', content: [{ type: 'text', text: paragraph }] })) };
}
