import { join } from 'node:path';
import type { GitRemotes } from '../../../src/providers/git-remote-types';
import { commitWorkspace, filesWithConflictMarkers, prepareWorkspace, serviceBranch, startBaseMerge } from '../../../src/containers/workspace';
import { hostTreeDir } from '../../../src/containers/workspace-sync';
import type { PullRequest, RepoRef } from '../../../src/providers/scmhost/scmhost-types';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { namesInText } from '../agent-output-bounds';
import { createContainerStations, type ContainerStationDeps, type ContainerStationSpec } from '../container-station';
import { stationFailure } from '../station-failure';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import { rebaseBranchSource } from './rebase-branch-source';
import { NotFoundProviderError } from '../../../src/providers/provider-errors';
import type { GitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import { forkRemote } from '../../../src/providers/gitlab/gitlab-fork';
import { issueEffectName } from './pull-request-stations';

/**
 * rebase (`/service rebase`, REFERENCE "Commands"): the base branch is merged into the ticket branch of each target
 * pull request. A clean merge is committed and pushed from the host; conflicts go to an agent in a container (policy
 * key rebase), and the merge is only committed when no conflict marker is left. The branch moves forward (a merge
 * commit), so the push needs no force and a reviewer's comments stay on their commits. A pull request (GitHub) or
 * merge request (GitLab) from the service account's fork (fork mode) is merged the same way in a clone of the
 * upstream, with the branch fetched from the fork and the merge pushed back to the fork (`rebase-branch-source.ts`).
 */

export interface RebaseStationDeps {
  scmhost?: () => Promise<{ getPullRequest(ref: RepoRef, number: number): Promise<PullRequest> }>;
  /** Merge requests of the repository registry's GitLab projects. */
  gitlab?: (repository: string) => { entry: { namespace: string }; client: Pick<GitLabClient, 'getMergeRequest' | 'getProject' | 'findOwnFork'> } | undefined;
  remotes: GitRemotes;
  /** CONTAINER_WORK_DIR */
  workDir: string;
  container: ContainerStationDeps;
}

const REBASE_NOTES = '.service/rebase.md';

export function rebaseText(input: StationInput, repository: string, base: string, conflicts: readonly string[]): string {
  return [
    `Ticket ${input.ticket_key}: the base branch \`${base}\` of ${repository} is being merged into \`${serviceBranch(input.ticket_key)}\`, and these files have conflicts:`,
    ...conflicts.map((file) => `- ${file}`),
    '',
    'Resolve every conflict (no conflict marker may remain); do not commit.',
    '',
    `Write \`${REBASE_NOTES}\`: each file and how you resolved it.`,
  ].join('\n');
}

/** The container's push goes where the clean merge's would: to the fork the branch was fetched from. */
function pushToFork(operation: EffectIntent['operation'], fork: string): EffectIntent['operation'] {
  return operation.kind === 'git.push' ? { ...operation, repository: fork, mode: 'direct' } : operation;
}

const mergeMessage = (input: StationInput, base: string) => `[${input.ticket_key}] merge ${base} into ${serviceBranch(input.ticket_key)}`;

export function createRebaseStation(deps: RebaseStationDeps): Record<string, StationActivity> {
  const conflictStation: ContainerStationSpec = {
    skill: 'rebase',
    task: (input) => rebaseText(input, String(input.params?.repository), String(input.params?.base), (input.params?.conflicts ?? []) as string[]),
    outputs: () => [REBASE_NOTES],
    commitMessage: (input) => mergeMessage(input, String(input.params?.base)),
    // The container station clones afresh: the same merge is started in its host tree, and the agent finishes it in
    // its copy.
    prepare: async (dir, input) => {
      await startBaseMerge(dir, String(input.params?.base));
    },
    beforeCommit: async (dir, input) => {
      const conflicts = (input.params?.conflicts ?? []) as string[];
      const left = await filesWithConflictMarkers(dir, conflicts);
      if (left.length > 0) {
        throw stationFailure({
          code: 'rebase_conflict',
          message: `merging ${String(input.params?.base)} into ${serviceBranch(input.ticket_key)} of ${String(input.params?.repository)} left conflicts the agent did not resolve: ${namesInText(left)}`,
          recovery: `merge ${String(input.params?.base)} into the branch by hand and push, then add service:retry`,
        });
      }
    },
  };
  const resolveInContainer = createContainerStations(deps.container)(conflictStation);
  // In fork mode the container station continues the branch found on the fork (its `forkOf`), not the upstream's.
  const resolveOnFork = (fork: string) => createContainerStations({ ...deps.container, forkOf: async () => fork })(conflictStation);

  /** Open, merged or closed, and the base branch, of a pull request (GitHub) or merge request (GitLab). */
  async function pullState(parsed: { repository: string; number: number }): Promise<{ state: 'open' | 'merged' | 'closed'; baseRef: string; headRepository?: string | null; headRef?: string; serviceFork?: string | null }> {
    const gitlab = deps.gitlab?.(parsed.repository);
    if (gitlab) {
      const { client, entry } = gitlab;
      const mr = await client.getMergeRequest(entry.namespace, parsed.number);
      const state = mr.state === 'opened' ? 'open' : mr.state === 'merged' ? 'merged' : 'closed';
      const project = mr.sourceProjectId === undefined || state !== 'open' ? undefined : await client.getProject(entry.namespace);
      if (!project || project.id === mr.sourceProjectId) return { state, baseRef: mr.targetBranch, headRef: mr.sourceBranch };
      // From another project (a fork): which one, and whether it is the service account's own fork.
      const source = await client.getProject(String(mr.sourceProjectId)).catch((error: unknown) => {
        if (error instanceof NotFoundProviderError) return null;
        throw error;
      });
      const own = await client.findOwnFork(entry.namespace);
      return { state, baseRef: mr.targetBranch, headRef: mr.sourceBranch, headRepository: source ? source.pathWithNamespace : null, serviceFork: own?.pathWithNamespace ?? null };
    }
    if (!deps.scmhost) {
      throw stationFailure({ code: 'source_host_not_configured', message: `${parsed.repository} is neither a GitHub repository this worker can read (SCMHOST_TOKEN) nor an entry of the repository registry`, recovery: 'configure the source host of this repository, restart the worker, then add service:retry' });
    }
    const [owner, repo] = parsed.repository.split('/');
    const pull = await (await deps.scmhost()).getPullRequest({ owner: owner!, repo: repo! }, parsed.number);
    // The client leaves headRepoFullName unset when GitHub sends `head.repo: null`: the head's fork was deleted.
    return { state: pull.state === 'open' ? 'open' : pull.merged ? 'merged' : 'closed', baseRef: pull.baseRef, headRepository: pull.headRepoFullName ?? null, headRef: pull.headRef };
  }

  return {
    rebase: async (input) => {
      const target = typeof input.params?.pull_request === 'string' ? input.params.pull_request : undefined;
      const refs = target ? [target] : input.pull_requests ?? [];
      const effects: EffectIntent[] = [];
      const done: string[] = [];
      for (const ref of refs) {
        const parsed = parsePullRequestRef(ref);
        if (!parsed) { done.push(`${ref}: not rebased (not a pull request reference)`); continue; }
        const pull = await pullState(parsed);
        if (pull.state !== 'open') { done.push(`${ref}: ${pull.state}`); continue; }
        const remote = deps.remotes.remoteFor(parsed.repository);
        const branch = serviceBranch(input.ticket_key);
        const gitlab = deps.gitlab?.(parsed.repository);
        const source = rebaseBranchSource({ repository: parsed.repository, ref, host: gitlab ? 'gitlab' : parsed.host, baseRef: pull.baseRef, configuredMode: remote.changeRequestMode, headRepository: pull.headRepository, headRef: pull.headRef, serviceFork: pull.serviceFork }, branch);
        if (source.kind === 'refuse') throw stationFailure(source);
        const fork = source.kind === 'fork' ? source.repository : undefined;
        // GitLab: the fork's git remote is the project's with the fork's path (the registry names only the project),
        // and the merge is pushed in `fork` mode, which finds the service account's fork again; GitHub: the fork is
        // a repository of its own, pushed to `direct`.
        const branchRemote = fork ? (gitlab ? forkRemote(remote, gitlab.entry.namespace, fork) : deps.remotes.remoteFor(fork)) : undefined;
        const pushTo: { repository: string; mode: 'direct' | 'fork' } = fork && !gitlab ? { repository: fork, mode: 'direct' } : { repository: parsed.repository, mode: fork ? 'fork' : 'direct' };
        const dir = hostTreeDir(join(deps.workDir, `${input.ticket_key.toLowerCase()}-${input.node}-${input.visit}-${input.run_id.slice(0, 12)}-${issueEffectName('host', parsed.repository)}`));
        // The clone is always the upstream's: its base branch is what is merged, a fork's copy of it may be stale.
        const workspace = await prepareWorkspace({ dir, remote, branchRemote, branch });
        if (fork && !workspace.resumed) {
          throw stationFailure({ code: 'rebase_branch_missing', message: `${ref} comes from ${branch} on ${fork}, but that branch is gone from the fork`, recovery: `push the branch to ${fork} again (or close the pull request), then add service:retry` });
        }
        const merge = await startBaseMerge(dir, pull.baseRef);
        if (merge.state === 'up_to_date') { done.push(`${ref}: already up to date with ${pull.baseRef}`); continue; }
        if (merge.state === 'clean') {
          const commit = await commitWorkspace(dir, mergeMessage(input, pull.baseRef));
          if (commit.sha) {
            // To a fork (where the pull request's head is), base_sha makes the push refuse a branch that moved on
            // the fork since it was fetched.
            effects.push({ name: issueEffectName('push', parsed.repository), required: true, operation: { kind: 'git.push', ...pushTo, branch: workspace.branch, commit_sha: commit.sha, base_sha: workspace.baseSha, workspace: dir } });
          }
          done.push(`${ref}: merged ${pull.baseRef} cleanly`);
          continue;
        }
        const conflictInput = { ...input, params: { ...input.params, repository: parsed.repository, base: pull.baseRef, conflicts: merge.conflicts } };
        // GitLab: the container station's own fork lookup (`forkOf`) finds the service account's fork and its remote.
        const result = fork
          ? await (gitlab ? resolveInContainer : resolveOnFork(fork))({ ...conflictInput, params: { ...conflictInput.params, change_request_mode: 'fork' } })
          : await resolveInContainer(conflictInput);
        const data = result.data as { commit_sha: string | null; agent: { message?: string } };
        if (result.outcome === 'agent_failed' || !data.commit_sha) {
          throw stationFailure({
            code: 'rebase_conflict',
            message: `merging ${pull.baseRef} into ${workspace.branch} of ${parsed.repository} has conflicts in ${namesInText(merge.conflicts)} that the agent could not resolve${data.agent.message ? `: ${data.agent.message}` : ''}`,
            recovery: `merge ${pull.baseRef} into the branch by hand and push, then add service:retry`,
          });
        }
        effects.push(...(result.effects ?? []).map((e) => ({ ...e, name: issueEffectName(e.name, parsed.repository), operation: fork && !gitlab ? pushToFork(e.operation, fork) : e.operation })));
        done.push(`${ref}: merged ${pull.baseRef}, conflicts in ${namesInText(merge.conflicts)} resolved`);
      }
      return { outcome: 'rebased', effects, data: { results: done }, summary: done.join('; ').slice(0, 500) || 'no pull request to rebase' };
    },
  };
}
