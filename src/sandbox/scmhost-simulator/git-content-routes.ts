/**
 * The REST routes that show what git holds, the way people read a pull request on GitHub: its files, its commits,
 * the pull request itself as a diff or a patch (`Accept: application/vnd.github.diff` / `.patch`, also `.v3.`),
 * and a single commit. Each answer is computed with git from the bare repository, so it is what a clone sees.
 */
import type { Request, Response, Router } from 'express';
import type { GitHubJson, SimRepo, SimUser } from './github-json';
import type { PullRequestGit } from './pull-request-git';
import { n, p, page } from './route-params';
import { ScmhostSimError, type ScmhostState } from './scmhost-state';

export type TextMediaType = 'diff' | 'patch';

/** The text media type a request asks for (`application/vnd.github[.v3].diff|patch`), if any. */
export function textMediaType(req: Request): { kind: TextMediaType; contentType: string } | undefined {
  const match = /application\/vnd\.github(\.v3)?\.(diff|patch)/.exec(String(req.headers.accept ?? ''));
  return match ? { kind: match[2] as TextMediaType, contentType: `application/vnd.github${match[1] ?? ''}.${match[2]}; charset=utf-8` } : undefined;
}

/** GitHub links a commit's author to an account by e-mail; the simulator knows the noreply addresses it writes. */
export function accountByEmail(state: ScmhostState): (email: string) => SimUser | undefined {
  return (email) => {
    const match = /^\d+\+([^@]+)@users\.noreply\./.exec(email);
    return match ? state.users.get(match[1] ?? '') : undefined;
  };
}

export function registerGitContentRoutes(api: Router, parts: { state: ScmhostState; json: GitHubJson; pulls: PullRequestGit }): void {
  const { state, json, pulls } = parts;
  const repoOf = (req: Request): SimRepo => state.repo(p(req, 'owner'), p(req, 'repo'));
  const sendText = (res: Response, contentType: string, text: string) => {
    res.status(200).type(contentType).send(text);
  };

  // Before the JSON route of the same path: only a diff or patch request is answered here.
  api.get('/repos/:owner/:repo/pulls/:number', async (req, res, next) => {
    const media = textMediaType(req);
    if (!media) return next();
    const repo = repoOf(req);
    const pull = state.pull(repo, n(req));
    sendText(res, media.contentType, media.kind === 'diff' ? await pulls.diff(repo, pull) : await pulls.patch(repo, pull));
  });

  api.get('/repos/:owner/:repo/pulls/:number/files', async (req, res) => {
    const repo = repoOf(req);
    const pull = state.pull(repo, n(req));
    const content = await pulls.content(repo, pull);
    res.json(page(req, res, content.files).map((file) => json.diffEntry(repo, file, content.head)));
  });

  api.get('/repos/:owner/:repo/pulls/:number/commits', async (req, res) => {
    const repo = repoOf(req);
    const pull = state.pull(repo, n(req));
    const content = await pulls.content(repo, pull);
    res.json(page(req, res, content.commits).map((commit) => json.gitCommit(repo, commit, accountByEmail(state))));
  });

  api.get('/repos/:owner/:repo/commits/:ref', async (req, res) => {
    const repo = repoOf(req);
    const git = pulls.repository(repo);
    const ref = p(req, 'ref');
    const sha = await git.resolveCommit(ref);
    if (!sha) throw new ScmhostSimError(422, `No commit found for SHA: ${ref}`);
    const media = textMediaType(req);
    if (media) {
      sendText(res, media.contentType, media.kind === 'diff' ? await git.diff(await git.parentOrEmpty(sha), sha) : await git.formatCommitPatch(sha));
      return;
    }
    const commit = await git.commit(sha);
    // Like GitHub, a commit's changes are against its first parent (a merge commit shows what it brought in).
    const files = await git.changedFiles(await git.parentOrEmpty(sha), sha);
    res.json(json.gitCommit(repo, commit, accountByEmail(state), { files }));
  });
}
