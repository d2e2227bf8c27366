/**
 * Git over smart HTTP for the source-host simulator: the real `git http-backend` behind token auth, so tests clone
 * and push through the same code path (and the same credential handling) as against GitHub. Each simulated
 * repository gets a bare repository on disk on first use, with an initial commit on its default branch; every
 * change of a branch, by a push or at creation, is reported so the REST state (branches, PR heads) follows git.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NextFunction, Request, Response } from 'express';

export interface GitSmartHttpOptions {
  /**
   * Folder of the bare repositories (`<root>/<owner>/<name>.git`), kept as it is on close; a temporary one, removed
   * on close, by default.
   */
  root?: string;
  /** A self-managed path prefix in front of the repositories (GitLab `/gitlab`). */
  pathPrefix?: string;
  /**
   * Accepted tokens (as the Basic password or a Bearer token) and the login each acts as, or a function that says
   * who a token acts as (undefined: refused); any token, as `service-bot`, when unset.
   */
  tokens?: TokenLogins;
  /** The default branch of a simulated repository, or undefined when the simulator has no such repository. */
  defaultBranchOf(fullName: string): string | undefined;
  /** The repository a fork was made from: a fork's git repository starts as a copy of its parent's. */
  parentOf?(fullName: string): string | undefined;
  /** Branch heads after a push or the initial commit. */
  onBranches(fullName: string, heads: Array<{ branch: string; sha: string }>, login: string): void;
}

export interface GitSmartHttp {
  handler(req: Request, res: Response, next: NextFunction): void;
  /** The bare repository of `owner/name` on disk (created when missing): tests may inspect it with git. */
  repositoryPath(fullName: string): string;
  /** The bare repository of `owner/name` when it exists on disk, without creating it. */
  existingRepositoryPath(fullName: string): string | undefined;
  close(): void;
}

// `owner/repo.git` on GitHub, `group/sub/project.git` on GitLab.
const ROUTE = /^\/(?:api\/v3\/)?((?:[^/]+\/)+[^/]+?)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;
const GIT_IDENTITY = { GIT_AUTHOR_NAME: 'simulator', GIT_AUTHOR_EMAIL: 'simulator@localhost', GIT_COMMITTER_NAME: 'simulator', GIT_COMMITTER_EMAIL: 'simulator@localhost' };

/** Who each token acts as: a table, or a function (the sandbox's person tokens); undefined for a refused token. */
export type TokenLogins = Record<string, string> | ((token: string) => string | undefined);

/** The login a token acts as (own keys of a table only: `constructor` is not a token); `service-bot` without tokens. */
export function loginOfToken(tokens: TokenLogins | undefined, token: string): string | undefined {
  if (typeof tokens === 'function') return tokens(token);
  if (!tokens) return 'service-bot';
  return Object.hasOwn(tokens, token) ? tokens[token] : undefined;
}

function loginOf(req: Request, tokens: TokenLogins | undefined): string | undefined {
  const header = req.headers.authorization ?? '';
  let token: string | undefined;
  const basic = /^basic\s+(\S+)$/i.exec(header);
  if (basic) token = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':');
  const bearer = /^(?:bearer|token)\s+(\S+)$/i.exec(header);
  if (bearer) token = bearer[1];
  if (!token) return undefined;
  return loginOfToken(tokens, token);
}

function heads(path: string): Array<{ branch: string; sha: string }> {
  const out = execFileSync('git', ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads'], { cwd: path, encoding: 'utf8' });
  return out.split('\n').filter(Boolean).map((line) => {
    const [branch = '', sha = ''] = line.split(' ');
    return { branch, sha };
  });
}

export function createGitSmartHttp(options: GitSmartHttpOptions): GitSmartHttp {
  const ownRoot = !options.root;
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'scmhost-git-'));

  const pathOf = (fullName: string) => join(root, `${fullName.toLowerCase()}.git`);

  function repositoryPath(fullName: string): string {
    const path = pathOf(fullName);
    if (existsSync(path)) return path;
    const branch = options.defaultBranchOf(fullName) ?? 'main';
    const parent = options.parentOf?.(fullName);
    if (parent) {
      execFileSync('git', ['clone', '--quiet', '--bare', repositoryPath(parent), path]);
      execFileSync('git', ['config', 'http.receivepack', 'true'], { cwd: path });
      options.onBranches(fullName, heads(path), 'simulator');
      return path;
    }
    mkdirSync(path, { recursive: true });
    const git = (args: string[], input?: string) => execFileSync('git', args, { cwd: path, encoding: 'utf8', input, env: { ...process.env, ...GIT_IDENTITY } }).trim();
    git(['init', '--quiet', '--bare', '--initial-branch', branch]);
    git(['config', 'http.receivepack', 'true']);
    const blob = git(['hash-object', '-w', '--stdin'], `# ${fullName}\n`);
    const tree = git(['mktree'], `100644 blob ${blob}\tREADME.md\n`);
    const commit = git(['commit-tree', tree, '-m', 'Initial commit']);
    git(['update-ref', `refs/heads/${branch}`, commit]);
    options.onBranches(fullName, heads(path), 'simulator');
    return path;
  }

  function handler(req: Request, res: Response, next: NextFunction): void {
    const full = (req.originalUrl ?? req.url).split('?')[0] ?? '';
    const prefix = options.pathPrefix ?? '';
    if (!full.startsWith(prefix)) return next();
    const match = ROUTE.exec(full.slice(prefix.length));
    if (!match) return next();
    const fullName = match[1]!;
    const service = match[2]!;
    const login = loginOf(req, options.tokens);
    if (!login) {
      res.status(401).setHeader('www-authenticate', 'Basic realm="scmhost simulator"');
      res.end('Authentication failed');
      return;
    }
    if (!options.defaultBranchOf(fullName)) {
      res.status(404).end('Repository not found.');
      return;
    }
    const repoPath = repositoryPath(fullName);
    const query = (req.originalUrl ?? '').split('?')[1] ?? '';
    const pushing = service === 'git-receive-pack' || query.includes('service=git-receive-pack');
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: `/${fullName.toLowerCase()}.git/${service}`,
        REQUEST_METHOD: req.method,
        QUERY_STRING: query,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: login,
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...GIT_IDENTITY,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    req.pipe(child.stdin);
    let buffered = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of buffered.subarray(0, end).toString('utf8').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]) || 200;
        else if (name) res.setHeader(name, value);
      }
      res.status(status);
      res.write(buffered.subarray(end + 4));
    });
    let errorText = '';
    child.stderr.on('data', (chunk: Buffer) => { errorText += chunk.toString('utf8'); });
    child.on('close', (code) => {
      if (!headersDone) {
        res.status(500).end(`git http-backend failed (${code}): ${errorText}`);
        return;
      }
      res.end();
      if (pushing && req.method === 'POST' && code === 0) options.onBranches(fullName, heads(repoPath), login);
    });
  }

  return {
    handler,
    repositoryPath,
    existingRepositoryPath: (fullName) => (existsSync(pathOf(fullName)) ? pathOf(fullName) : undefined),
    close: () => {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Runs git against a bare repository of the simulator (tests: read a file at a branch, count commits). */
export function gitIn(path: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: path, encoding: 'utf8' }, (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(stdout)));
  });
}
