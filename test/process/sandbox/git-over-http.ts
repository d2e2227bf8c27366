/**
 * A person's git against the source-host simulator, over smart HTTP with a token (as container-station's pushFile
 * does): commit files on a branch and push, list the remote's refs, read the log. The token rides in the URL, which
 * is fine on loopback and keeps the helper free of credential helpers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function git(args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (error, stdout, stderr) => (
      error ? reject(new Error(`git ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout)));
  });
}

/** `<simulator>/<owner>/<repo>.git` with the token as the Basic password. */
export function remoteUrl(simulatorUrl: string, fullName: string, token: string): string {
  const url = new URL(`${simulatorUrl}/${fullName}.git`);
  url.username = 'x-access-token';
  url.password = token;
  return url.href;
}

/**
 * Clones, checks out `branch` (made from `from`, default the default branch, when the remote lacks it), writes the
 * files (null removes one), commits and pushes; resolves with the pushed commit.
 */
export async function pushCommit(remote: string, branch: string, files: Record<string, string | null>, message: string, options: { from?: string } = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-push-'));
  try {
    await git(['clone', '--quiet', remote, dir]);
    const remoteHas = (await git(['ls-remote', '--heads', 'origin', branch], dir)).trim() !== '';
    if (remoteHas) await git(['checkout', '--quiet', '-B', branch, `origin/${branch}`], dir);
    else await git(['checkout', '--quiet', '-b', branch, ...(options.from ? [`origin/${options.from}`] : [])], dir);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) {
        rmSync(join(dir, path));
        continue;
      }
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    await git(['add', '--all'], dir);
    await git(['-c', 'user.name=Pat', '-c', 'user.email=pat@example.com', 'commit', '--quiet', '-m', message], dir);
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], dir);
    return (await git(['rev-parse', 'HEAD'], dir)).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `git ls-remote --heads` as a map of branch to sha. */
export async function remoteHeads(remote: string): Promise<Map<string, string>> {
  const out = await git(['ls-remote', '--heads', remote]);
  return new Map(out.split('\n').filter(Boolean).map((line) => {
    const [sha = '', ref = ''] = line.split('\t');
    return [ref.replace(/^refs\/heads\//, ''), sha];
  }));
}

/** Clones the remote and runs `git log` there (format and range as given); the clone is removed afterwards. */
export async function remoteLog(remote: string, args: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-log-'));
  try {
    await git(['clone', '--quiet', '--mirror', remote, dir]);
    return await git(['log', ...args], dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
