/**
 * A person's push in the sandbox (`service sandbox commit-main`) against the source-host simulator: the commit lands
 * on the branch as the person, and nothing the repository holds or the path says makes it write outside its scratch
 * clone, into the clone's .git, or leak the token.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFile, PersonGitError, repositoryFilePath, RepositoryPathError } from '../../../src/sandbox/person-git';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { personToken } from '../../../src/sandbox/scmhost-simulator/person-tokens';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { git, remoteUrl } from './git-over-http';

const BOT = 'ghp_persongitbot0123456789abcdefABCDEFGH';
const SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const REPO = 'sandbox/app';

describe('a person\'s commit pushed to the simulated source host', () => {
  let sim: ScmhostSimulator;
  let outside: string;
  const remote = () => `${sim.url}/${REPO}.git`;
  const sam = () => personToken(SECRET, 'sam');

  beforeAll(async () => {
    sim = await startScmhostSimulator({ repositories: [REPO], tokens: { [BOT]: 'service-bot' }, personTokenSecret: SECRET });
    outside = mkdtempSync(join(tmpdir(), 'person-git-outside-'));
    // The repository holds a symbolic link out of any clone (an agent in a container could have committed one).
    const work = mkdtempSync(join(tmpdir(), 'person-git-seed-'));
    try {
      await git(['clone', '--quiet', remoteUrl(sim.url, REPO, BOT), work]);
      symlinkSync(outside, join(work, 'escape'));
      await git(['add', '--all'], work);
      await git(['-c', 'user.name=bot', '-c', 'user.email=bot@example.com', 'commit', '--quiet', '-m', 'a link out'], work);
      await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main'], work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    rmSync(outside, { recursive: true, force: true });
  });

  it('commits one file on the branch as the person, with the person token', async () => {
    const sha = await commitFile({ remote: remote(), token: sam(), branch: 'main', path: 'docs/notes.md', content: 'A note\n', message: 'Add a note', author: { name: 'sam', email: 'sam@example.com' } });
    const bare = sim.git.repositoryPath(REPO);
    expect((await gitIn(bare, ['rev-parse', 'main'])).trim()).toBe(sha);
    expect(await gitIn(bare, ['show', 'main:docs/notes.md'])).toBe('A note\n');
    expect((await gitIn(bare, ['log', '-1', '--format=%an <%ae>|%s', 'main'])).trim()).toBe('sam <sam@example.com>|Add a note');
    expect(sim.state.repo('sandbox', 'app').branches.get('main')).toBe(sha);
  });

  it('refuses paths outside the tree or inside .git before cloning anything', () => {
    for (const path of ['../x.md', 'a/../../x.md', '/etc/passwd', 'C:/x.md', '.git/hooks/post-commit', 'a/.GIT/config', 'a//b.md', './a.md', '', 'a\nb.md']) {
      expect(() => repositoryFilePath(path), JSON.stringify(path)).toThrow(RepositoryPathError);
    }
    expect(repositoryFilePath('SANDBOX_CHANGES/SBX-1.md')).toBe('SANDBOX_CHANGES/SBX-1.md');
  });

  it('never writes through a symbolic link the repository holds', async () => {
    const before = readdirSync(outside);
    const error = await commitFile({ remote: remote(), token: sam(), branch: 'main', path: 'escape/pwned.md', content: 'x\n', message: 'm', author: { name: 'sam', email: 'sam@example.com' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepositoryPathError);
    expect((error as Error).message).toContain('goes through escape');
    expect(readdirSync(outside)).toEqual(before);
    expect(existsSync(join(outside, 'pwned.md'))).toBe(false);
  });

  it('fails with git\'s reason and without the token when the source host refuses it', async () => {
    const forged = `${sam().slice(0, -4)}0000`;
    const error = await commitFile({ remote: remote(), token: forged, branch: 'main', path: 'a.md', content: 'x\n', message: 'm', author: { name: 'sam', email: 'sam@example.com' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersonGitError);
    expect((error as Error).message).toMatch(/Authentication failed|401|could not read/i);
    expect((error as Error).message).not.toContain(forged);
    expect((error as Error).message).not.toContain(Buffer.from(`x-access-token:${forged}`).toString('base64'));
  });
});
