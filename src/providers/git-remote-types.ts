/**
 * Where the host's git reaches a repository, and with which credentials. The providers hand these out (a GitLab fork is
 * a remote of its own); src/containers/git-remote.ts runs git against them.
 */

/**
 * Git over HTTPS with the host's token. The token reaches git only through the environment of one git process
 * (GIT_CONFIG_COUNT / http.extraHeader), never a command line (visible in `ps`), `.git/config` or the workspace.
 */
export interface GitAuth {
  username: string;
  token: string;
}

export interface GitRemote {
  /** Without credentials. */
  url: string;
  auth?: GitAuth;
  /** `direct` pushes to the repository, `fork` to the service account's fork of it. */
  changeRequestMode: 'direct' | 'fork';
  defaultBranch?: string;
}

export interface GitRemotes {
  remoteFor(repository: string): GitRemote;
}
