/**
 * A person's push in the sandbox (`service sandbox commit-main`): clone the simulated repository into a scratch
 * folder, write one file, commit as the person and push to a branch, over git's smart HTTP like any git client.
 * The token rides in an `http.extraHeader` passed through the environment, never in a URL or an argument, so it
 * shows in no process list, no `.git/config` and no error message. The path is checked before anything is written:
 * a file of the repository's tree, never outside the scratch clone or inside its `.git`. The repository's content is
 * not trusted (an agent in a container wrote some of it): the clone checks symbolic links out as plain files
 * (`core.symlinks=false`) and a path through anything that is not a folder is refused, so no write follows a link.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The path names no file of a repository's tree; the message says which part and what to give. */
export class RepositoryPathError extends Error {
  override readonly name = 'RepositoryPathError';
}

/** A git command of the push failed; its output, which carries no token. */
export class PersonGitError extends Error {
  override readonly name = 'PersonGitError';
}

/** `path` as a file of the tree (`a/b.md`): relative, no `.`/`..` part, no `.git` folder, no control characters. */
export function repositoryFilePath(path: string): string {
  const parts = path.replace(/\\/g, '/').split('/');
  const problem = path.trim() === '' ? 'is empty'
    : path.startsWith('/') || /^[a-z]:/i.test(path) ? 'is absolute'
      : [...path].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f) ? 'has a control character'
        : parts.some((part) => part === '' || part === '.' || part === '..') ? 'has an empty, "." or ".." part'
          : parts.some((part) => part.toLowerCase() === '.git') ? 'is inside .git'
            : undefined;
  if (problem) throw new RepositoryPathError(`the path "${path.slice(0, 200)}" ${problem}: give a file of the repository, such as docs/notes.md`);
  return parts.join('/');
}

/** Refuses a path through something that is not a folder in the clone, or onto something that is not a file. */
async function checkPlace(dir: string, path: string): Promise<void> {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const at = parts.slice(0, i).join('/');
    const found = await lstat(join(dir, at)).catch(() => undefined);
    if (!found) return;
    const last = i === parts.length;
    if (last ? !found.isFile() : !found.isDirectory()) {
      throw new RepositoryPathError(`the path "${path}" goes through ${at}, which is ${found.isSymbolicLink() ? 'a symbolic link' : last ? 'not a file' : 'a file, not a folder'} in the repository: give another path`);
    }
  }
}

function run(args: string[], cwd: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, encoding: 'utf8' }, (error, stdout, stderr) => (
      error ? reject(new PersonGitError(`git ${args[0]}: ${(stderr || error.message).trim()}`)) : resolve(stdout)));
  });
}

export interface PersonCommit {
  /** `<simulator>/<owner>/<repo>.git`, without credentials. */
  remote: string;
  token: string;
  branch: string;
  path: string;
  content: string;
  message: string;
  author: { name: string; email: string };
}

/** Commits one file on `branch` as the person and pushes it; resolves with the pushed commit. */
export async function commitFile(commit: PersonCommit): Promise<string> {
  const path = repositoryFilePath(commit.path);
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-person-'));
  const basic = Buffer.from(`x-access-token:${commit.token}`).toString('base64');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    GIT_CONFIG_KEY_1: 'core.symlinks',
    GIT_CONFIG_VALUE_1: 'false',
    GIT_AUTHOR_NAME: commit.author.name, GIT_AUTHOR_EMAIL: commit.author.email,
    GIT_COMMITTER_NAME: commit.author.name, GIT_COMMITTER_EMAIL: commit.author.email,
  };
  try {
    await run(['clone', '--quiet', '--branch', commit.branch, '--single-branch', commit.remote, dir], undefined, env);
    await checkPlace(dir, path);
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), commit.content);
    await run(['add', '--', path], dir, env);
    await run(['commit', '--quiet', '--allow-empty', '-m', commit.message], dir, env);
    await run(['push', '--quiet', 'origin', `HEAD:refs/heads/${commit.branch}`], dir, env);
    return (await run(['rev-parse', 'HEAD'], dir, env)).trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
