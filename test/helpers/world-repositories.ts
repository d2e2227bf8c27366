import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runGit } from '../../src/containers/git-remote';

interface GitHost {
  url: string;
  auth: { username: string; token: string };
}

/** Which repositories live on which simulated host, and how to reach each host over git smart HTTP. */
export interface RepositoryHosts {
  github: string[];
  gitlab: string[];
  scm?: GitHost;
  gitlabHost?: GitHost;
}

/** The git side of a world: what is on a ticket branch, and someone else's commits on main. */
export interface WorldRepositories {
  /** Commits these files on `main` (the seed of a repository, before the service starts). */
  seed(repository: string, files: Record<string, string>): Promise<void>;
  /** Subjects of the commits on the ticket branch that are not on main, oldest first. */
  branchLog(repository: string, key: string): Promise<string[]>;
  /** A file as it is on the ticket branch. */
  fileOnBranch(repository: string, key: string, path: string): Promise<string>;
  /** Someone else's commit on main (what makes a rebase necessary). */
  pushToMain(repository: string, path: string, content: string): Promise<void>;
}

/** The repository registry naming the GitLab simulator's projects (the service finds GitLab through it). */
export function gitlabRegistry(gitlabUrl: string, projects: string[]): string {
  return [
    'connections:',
    '  gitlab-sim:',
    '    provider: gitlab',
    `    base_url: ${gitlabUrl}`,
    '    credential_env: WORLD_GITLAB_TOKEN',
    '    webhook_secret_env: WORLD_GITLAB_WEBHOOK_SECRET',
    ...(projects.length ? ['repositories:', ...projects.flatMap((project) => [`  ${project}:`, '    provider: gitlab', '    connection: gitlab-sim', `    namespace: ${project}`])] : ['repositories: {}']),
  ].join('\n');
}

export function worldRepositories(hosts: RepositoryHosts, workDir: string): WorldRepositories {
  const hostOf = (repository: string): GitHost => {
    const host = hosts.gitlab.includes(repository) ? hosts.gitlabHost : hosts.scm;
    if (!host) throw new Error(`${repository} is on no source host of this world`);
    return host;
  };
  const clone = async (repository: string, branch: string | undefined, purpose: string) => {
    const host = hostOf(repository);
    const dir = join(workDir, purpose, `${repository}-${Date.now()}`);
    await runGit(['clone', '--quiet', ...(branch ? ['--branch', branch] : []), `${host.url}/${repository}.git`, dir], { auth: host.auth });
    return dir;
  };
  const commitAll = async (dir: string, author: { name: string; email: string }, message: string) => {
    await runGit(['add', '-A'], { cwd: dir });
    await runGit(['-c', `user.name=${author.name}`, '-c', `user.email=${author.email}`, 'commit', '--quiet', '-m', message], { cwd: dir });
  };
  const write = (dir: string, path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  return {
    seed: async (repository, files) => {
      // A new repository has no main yet: clone the empty one and push HEAD as main.
      const dir = await clone(repository, undefined, 'seed');
      for (const [path, content] of Object.entries(files)) write(dir, path, content);
      await commitAll(dir, { name: 't', email: 't@t' }, 'seed');
      await runGit(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir, auth: hostOf(repository).auth });
    },
    fileOnBranch: async (repository, key, path) => readFileSync(join(await clone(repository, `service/${key.toLowerCase()}`, 'check'), path), 'utf8'),
    pushToMain: async (repository, path, content) => {
      const dir = await clone(repository, 'main', 'main');
      write(dir, path, content);
      await commitAll(dir, { name: 'octo', email: 'octo@example.com' }, `change ${path} on main`);
      await runGit(['push', '--quiet', 'origin', 'main'], { cwd: dir, auth: hostOf(repository).auth });
    },
    branchLog: async (repository, key) => {
      const dir = await clone(repository, `service/${key.toLowerCase()}`, 'check');
      return (await runGit(['log', '--format=%s', 'origin/main..HEAD'], { cwd: dir })).trim().split('\n').reverse();
    },
  };
}
