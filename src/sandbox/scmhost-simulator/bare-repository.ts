/**
 * What the source-host simulator reads from and writes to one of its bare git repositories, with git itself: commits,
 * the files and diff between two commits, patches, and merge commits. The REST routes that show a pull request's
 * content and the merge button go through here, so what they answer is what `git clone` sees.
 */
import { execFile } from 'node:child_process';

export interface GitPerson { name: string; email: string; date: string }

export interface GitCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: GitPerson;
  committer: GitPerson;
  /** The full message, without the trailing newline git keeps. */
  message: string;
}

/** One file of a diff, as GitHub's diff-entry describes it. */
export interface ChangedFile {
  path: string;
  /** A renamed or copied file's old path. */
  previousPath?: string;
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed';
  /** The blob after the change (before it, for a removed file). */
  blobSha: string;
  additions: number;
  deletions: number;
  /** The hunks (from the first `@@`); absent for a binary file or a change of mode only. */
  patch?: string;
}

/** A git command of the simulator failed; the message carries git's own words. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(message: string, readonly exitCode: number | undefined, readonly stdout: string) {
    super(message);
  }
}

// The tree of an empty repository: what a root commit's changes are compared against.
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const STATUS: Record<string, ChangedFile['status']> = { A: 'added', D: 'removed', M: 'modified', R: 'renamed', C: 'copied', T: 'changed' };
const FIELD = '\x1f';
const RECORD = '\x1e';
const COMMIT_FORMAT = ['%H', '%T', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x1f') + '%x1e';
// Refs and shas only: a name starting with `-` would be read as an option.
const SAFE_REF = /^(?!-)[A-Za-z0-9._/^~@{}-]+$/;

const isoUtc = (date: string) => new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class BareRepository {
  constructor(readonly path: string) {}

  /** Runs git in the repository; rejects with git's stderr unless the exit code is one of `okCodes`. */
  git(args: string[], options: { input?: string; env?: Record<string, string>; okCodes?: number[] } = {}): Promise<{ stdout: string; code: number }> {
    return new Promise((resolve, reject) => {
      const child = execFile('git', args, {
        cwd: this.path, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...options.env },
      }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : undefined) : 0;
        if (code !== undefined && (code === 0 || options.okCodes?.includes(code))) return resolve({ stdout, code });
        reject(new GitCommandError(`git ${args.join(' ')} in ${this.path}: ${(stderr || error?.message || '').trim()}`, code, stdout));
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  }

  private async out(args: string[]): Promise<string> {
    return (await this.git(args)).stdout;
  }

  /** The commit a branch, tag or sha names; undefined when the repository has none. */
  async resolveCommit(ref: string): Promise<string | undefined> {
    if (!SAFE_REF.test(ref)) return undefined;
    const { stdout, code } = await this.git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { okCodes: [1, 128] });
    return code === 0 ? stdout.trim() : undefined;
  }

  async hasCommit(sha: string): Promise<boolean> {
    return /^[0-9a-f]{40}$/.test(sha) && (await this.resolveCommit(sha)) === sha;
  }

  async heads(): Promise<Map<string, string>> {
    const out = await this.out(['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads']);
    return new Map(out.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
  }

  async commit(sha: string): Promise<GitCommit> {
    const [commit] = parseCommits(await this.out(['show', '-s', `--format=${COMMIT_FORMAT}`, sha, '--']));
    if (!commit) throw new GitCommandError(`no commit ${sha} in ${this.path}`, undefined, '');
    return commit;
  }

  /** The commits reachable from `head` and not from `base`, oldest first (what a pull request adds). */
  async commitsBetween(base: string, head: string): Promise<GitCommit[]> {
    return parseCommits(await this.out(['log', '--reverse', '--topo-order', `--format=${COMMIT_FORMAT}`, `${base}..${head}`, '--']));
  }

  /** The best common ancestor; undefined when there is none or either commit is unknown. */
  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const { stdout, code } = await this.git(['merge-base', a, b], { okCodes: [1, 128] });
    return code === 0 ? stdout.trim() : undefined;
  }

  /** The first parent of a commit, or git's empty tree for a root commit (what GitHub compares a commit with). */
  async parentOrEmpty(sha: string): Promise<string> {
    return (await this.commit(sha)).parents[0] ?? EMPTY_TREE;
  }

  /** `git diff from to`, renames detected, as GitHub's `application/vnd.github.diff` shows it. */
  diff(from: string, to: string): Promise<string> {
    return this.out(['diff', '--no-color', '--no-ext-diff', '-M', from, to, '--']);
  }

  /** One mail-formatted patch per commit of `base..head` (merges left out, as `git format-patch` does). */
  formatPatch(base: string, head: string): Promise<string> {
    return this.out(['format-patch', '--stdout', '--no-color', '--no-signature', `${base}..${head}`, '--']);
  }

  /** A single commit as a mail-formatted patch. */
  formatCommitPatch(sha: string): Promise<string> {
    return this.out(['format-patch', '--stdout', '--no-color', '--no-signature', '-1', sha, '--']);
  }

  /** The files changed from `from` to `to`, with their counts and hunks. */
  async changedFiles(from: string, to: string): Promise<ChangedFile[]> {
    const [raw, numstat, patch] = await Promise.all([
      this.out(['diff', '--raw', '--no-abbrev', '-z', '-M', from, to, '--']),
      this.out(['diff', '--numstat', '-z', '-M', from, to, '--']),
      this.diff(from, to),
    ]);
    const files = parseRaw(raw);
    const counts = parseNumstat(numstat);
    const hunks = patch.split(/^(?=diff --git )/m).filter((section) => section.startsWith('diff --git '));
    return files.map((file, index) => {
      const count = counts[index] ?? { additions: 0, deletions: 0 };
      const section = hunks[index] ?? '';
      const at = section.search(/^@@/m);
      return { ...file, ...count, ...(at >= 0 ? { patch: section.slice(at).replace(/\n$/, '') } : {}) };
    });
  }

  /**
   * The tree of merging `theirs` into `ours` (git merge-tree, no work tree needed); the conflicting paths when the
   * two cannot be merged cleanly.
   */
  async mergeTree(ours: string, theirs: string): Promise<{ tree: string } | { conflicts: string[] }> {
    const { stdout, code } = await this.git(['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs], { okCodes: [1] });
    const [tree = '', ...rest] = stdout.split('\n').filter(Boolean);
    return code === 0 ? { tree } : { conflicts: rest };
  }

  /** Writes a commit of `tree` with these parents; author and committer as given, dated now. */
  async commitTree(tree: string, parents: string[], message: string, people: { author: Omit<GitPerson, 'date'>; committer: Omit<GitPerson, 'date'> }): Promise<string> {
    const env = {
      GIT_AUTHOR_NAME: people.author.name, GIT_AUTHOR_EMAIL: people.author.email,
      GIT_COMMITTER_NAME: people.committer.name, GIT_COMMITTER_EMAIL: people.committer.email,
    };
    const args = ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent]), '-F', '-'];
    return (await this.git(args, { input: message, env })).stdout.trim();
  }

  /** Moves a ref to `sha` only if it still points at `expected` (a compare-and-swap, as a push would be). */
  async updateRef(ref: string, sha: string, expected?: string): Promise<boolean> {
    const { code } = await this.git(['update-ref', ref, sha, ...(expected ? [expected] : [])], { okCodes: [1, 128] });
    return code === 0;
  }

  /** Copies a branch of another repository (a fork) into a ref of this one, so its commits can be read and merged here. */
  async fetchBranch(fromPath: string, branch: string, intoRef: string): Promise<void> {
    await this.git(['fetch', '--quiet', '--no-tags', fromPath, `+refs/heads/${branch}:${intoRef}`], { okCodes: [1, 128] });
  }
}

function person(name: string, email: string, date: string): GitPerson {
  return { name, email, date: isoUtc(date) };
}

function parseCommits(out: string): GitCommit[] {
  return out.split(RECORD).map((record) => record.replace(/^\n/, '')).filter(Boolean).map((record) => {
    const [sha = '', tree = '', parents = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = '', ...message] = record.split(FIELD);
    return {
      sha, tree, parents: parents.split(' ').filter(Boolean),
      author: person(an, ae, ad), committer: person(cn, ce, cd),
      message: message.join(FIELD).replace(/\n+$/, ''),
    };
  });
}

/** `git diff --raw -z`: `:mode mode sha sha STATUS\0path\0[newpath\0]` per file. */
function parseRaw(out: string): Array<Omit<ChangedFile, 'additions' | 'deletions' | 'patch'>> {
  const parts = out.split('\0');
  const files: Array<Omit<ChangedFile, 'additions' | 'deletions' | 'patch'>> = [];
  for (let i = 0; i < parts.length; i++) {
    const header = parts[i] ?? '';
    if (!header.startsWith(':')) continue;
    const [, , oldSha = '', newSha = '', code = ''] = header.slice(1).split(' ');
    const status = STATUS[code[0] ?? ''] ?? 'changed';
    const path = parts[++i] ?? '';
    if (status === 'renamed' || status === 'copied') {
      files.push({ path: parts[++i] ?? '', previousPath: path, status, blobSha: newSha });
    } else {
      files.push({ path, status, blobSha: status === 'removed' ? oldSha : newSha });
    }
  }
  return files;
}

/** `git diff --numstat -z`: `add\tdel\tpath\0`, or `add\tdel\t\0old\0new\0` for a rename; `-` counts for binary. */
function parseNumstat(out: string): Array<{ additions: number; deletions: number }> {
  const parts = out.split('\0');
  const counts: Array<{ additions: number; deletions: number }> = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(part);
    if (!match) continue;
    counts.push({ additions: Number(match[1]) || 0, deletions: Number(match[2]) || 0 });
    if (match[3] === '') i += 2;
  }
  return counts;
}
