import { execFile } from 'node:child_process';
import { connectionCredential, findRegistryRepository, type RepositoryRegistry } from '../config/repository-registry';
import { redactSecrets } from '../redaction/redact-secrets';
import { githubChangeRequestMode } from '../providers/scmhost/github-fork-mode';
import type { GitAuth, GitRemote, GitRemotes } from '../providers/git-remote-types';

export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(message: string, readonly exitCode: number | null) {
    super(message);
  }
}

export function gitAuthEnv(auth: GitAuth | undefined): Record<string, string> {
  const base = { GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '/bin/true', GCM_INTERACTIVE: 'never' };
  if (!auth) return base;
  const basic = Buffer.from(`${auth.username}:${auth.token}`).toString('base64');
  return { ...base, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

/**
 * The environment of host git: nothing of the worker's (its model key, tracker and source-host tokens stay out of
 * every git process and of anything git could start), no system or global configuration (an operator's
 * ~/.gitconfig may name helpers, filters or editors), and the token only when this command talks to the remote.
 */
export function hostGitEnv(auth: GitAuth | undefined, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/nonexistent',
    LANG: 'C', LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_OPTIONAL_LOCKS: '0',
    ...gitAuthEnv(auth),
  };
}

/**
 * Settings on every host git command line, so that nothing a repository's content or an earlier process put in a
 * tree can make the host run code: no hooks, no fsmonitor, no pager or editor, no ssh command, no external diff or
 * text conversion, no attributes file, no transports that run programs. Host git only ever runs in trees the host
 * made and no container could write (`src/containers/workspace-sync.ts`); these are the second line.
 */
export const HOST_GIT_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.pager=cat', 'core.editor=false', 'core.sshCommand=false',
  'core.askPass=', 'core.attributesFile=/dev/null', 'core.symlinks=true', 'core.protectNTFS=true', 'core.protectHFS=true',
  'diff.external=', 'credential.helper=', 'protocol.ext.allow=never', 'submodule.recurse=false',
  'fetch.recurseSubmodules=false', 'push.recurseSubmodules=no', 'gc.auto=0', 'maintenance.auto=false',
].flatMap((setting) => ['-c', setting]);

/** Runs git on the host; errors carry git's message with every credential removed. */
export function runGit(args: string[], options: { cwd?: string; auth?: GitAuth; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', [...HOST_GIT_CONFIG, ...args], {
      cwd: options.cwd, timeout: options.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8',
      env: hostGitEnv(options.auth),
    }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const secrets = options.auth ? [options.auth.token, Buffer.from(`${options.auth.username}:${options.auth.token}`).toString('base64')] : [];
      let message = `git ${args[0]} failed: ${(stderr || error.message).trim()}`;
      for (const secret of secrets) message = message.split(secret).join('[REDACTED]');
      reject(new GitCommandError(redactSecrets(message).slice(0, 2000), typeof error.code === 'number' ? error.code : null));
    });
  });
}

/** The web root of a GitHub API URL: api.github.com -> github.com, `https://host/api/v3` -> `https://host`. */
export function githubWebRoot(apiUrl: string): string {
  const url = apiUrl.replace(/\/+$/, '');
  if (/^https:\/\/api\.github\.com$/i.test(url)) return 'https://github.com';
  return url.replace(/\/api\/v3$/, '');
}

/**
 * GitHub repositories (`owner/name`) and the GitLab ones of the repository registry, with their tokens. A GitHub
 * repository is in `fork` mode when `githubForkRepos` (SCMHOST_FORK_REPOS) lists it; a GitLab one as the registry says.
 */
export function createGitRemotes(options: { scmhostApiUrl: string; scmhostToken?: string; registry?: RepositoryRegistry; env?: NodeJS.ProcessEnv; githubForkRepos?: readonly string[] }): GitRemotes {
  return {
    remoteFor(repository) {
      const entry = findRegistryRepository(options.registry, repository);
      if (entry) {
        const token = connectionCredential(entry.connection, options.env);
        const root = entry.connection.baseUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, '');
        return { url: `${root}/${entry.namespace}.git`, auth: { username: 'oauth2', token }, changeRequestMode: entry.changeRequestMode, defaultBranch: entry.defaultBranch };
      }
      if (!/^[^/\s]+\/[^/\s]+$/.test(repository)) throw new Error(`"${repository}" is not an owner/name repository and has no entry in the repository registry`);
      return {
        url: `${githubWebRoot(options.scmhostApiUrl)}/${repository}.git`,
        auth: options.scmhostToken ? { username: 'x-access-token', token: options.scmhostToken } : undefined,
        changeRequestMode: githubChangeRequestMode(repository, options.githubForkRepos ?? []),
      };
    },
  };
}

/** The head of a remote branch, or null when the branch does not exist. */
export async function remoteBranchHead(remote: Pick<GitRemote, 'url' | 'auth'>, branch: string): Promise<string | null> {
  const out = await runGit(['ls-remote', '--heads', remote.url, `refs/heads/${branch}`], { auth: remote.auth, timeoutMs: 60_000 });
  const line = out.split('\n').find((l) => l.endsWith(`\trefs/heads/${branch}`));
  return line ? line.split('\t')[0]! : null;
}
