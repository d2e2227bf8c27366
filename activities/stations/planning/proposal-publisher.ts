import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { GitRemotes } from '../../../src/providers/git-remote-types';
import { commitWorkspace, prepareWorkspace } from '../../../src/containers/workspace';
import { hostTreeDir } from '../../../src/containers/workspace-sync';
import type { ProposalSettings } from '../../../src/config/proposal-settings';
import { parseRepoRef } from '../../../src/providers/scmhost/repo-ref';
import type { ScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { proposalBranch, proposalFile, type ProposalKind, type ProposalOutput } from '../../../workflows/person-commands/proposal-review';
import type { EffectIntent, StationInput } from '../../../workflows/runtime/station-types';

export interface ProposalDeps {
  /** The project's proposal settings, read fresh for every generation; undefined when proposal review is off. */
  settings: (projectKey: string) => Promise<ProposalSettings | undefined>;
  remotes: GitRemotes;
  /** Where the host clones the proposals repository (CONTAINER_WORK_DIR); the clone must last until the push ran. */
  workDir: string;
  /** For the inline review comments of the latest revision. */
  scmhost?: () => Promise<Pick<ScmhostClient, 'findPullRequestByHeadBranch' | 'listReviewComments'>>;
}

export interface PreparedProposal extends ProposalOutput {
  dir: string;
  /** The branch head the revision starts from; null when the branch is new. */
  base_sha: string | null;
  head_sha: string;
}

/** Clones the proposals repository and checks out the proposal branch (continuing it when it exists). */
export async function prepareProposal(deps: ProposalDeps, settings: ProposalSettings, input: StationInput, kind: ProposalKind): Promise<PreparedProposal> {
  const dir = hostTreeDir(join(deps.workDir, 'proposals', `${input.ticket_key.toLowerCase()}-${input.node}-${input.visit}-${input.run_id.slice(0, 12)}`));
  const remote = deps.remotes.remoteFor(settings.repository);
  const workspace = await prepareWorkspace({ dir, remote, branch: proposalBranch(kind, input.ticket_key) });
  return {
    dir, repository: settings.repository, branch: workspace.branch, path: proposalFile(kind, settings.path, input.ticket_key),
    base_sha: workspace.resumed ? workspace.baseSha : null, head_sha: workspace.baseSha,
  };
}

/**
 * Inline review comments on the revision under review (those made on the branch head this station starts from), as
 * feedback for the model: a review's body alone often says little, its comments on lines say what to change.
 */
export async function latestReviewComments(deps: ProposalDeps, prepared: PreparedProposal): Promise<string[]> {
  if (!deps.scmhost || prepared.base_sha === null) return [];
  const client = await deps.scmhost();
  const ref = parseRepoRef(prepared.repository);
  const pull = await client.findPullRequestByHeadBranch(ref, prepared.branch, { state: 'open' });
  if (!pull) return [];
  const comments = await client.listReviewComments(ref, pull.number);
  return comments
    .filter((comment) => comment.commitId === prepared.head_sha && comment.body.trim() !== '')
    .map((comment) => `${comment.path}${comment.line ? `:${comment.line}` : ''}${comment.author ? ` (${comment.author})` : ''}: ${comment.body.trim()}`);
}

/**
 * Writes the document to its file, commits it on the host and returns the writes that publish it: the push to the
 * proposal branch, then the pull request (found again by its head branch, so a revision adopts the one PR).
 */
export async function proposalIntents(prepared: PreparedProposal, input: { ticketKey: string; kind: ProposalKind; title: string; heading: string; text: string; revision: number }): Promise<EffectIntent[]> {
  const file = join(prepared.dir, prepared.path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${input.text.trimEnd()}\n`, 'utf8');
  const commit = await commitWorkspace(prepared.dir, `[${input.ticketKey}] ${input.heading}${input.revision > 1 ? ` (revision ${input.revision})` : ''}`);
  const intents: EffectIntent[] = [];
  if (commit.sha) {
    intents.push({
      name: 'push_proposal', required: true,
      operation: { kind: 'git.push', repository: prepared.repository, branch: prepared.branch, commit_sha: commit.sha, base_sha: prepared.base_sha, workspace: prepared.dir, mode: 'direct' },
    });
  }
  intents.push({
    name: 'open_proposal_pr', required: true,
    operation: {
      kind: 'scmhost.open_pr', repository: prepared.repository, head: prepared.branch, base: null, mode: 'direct',
      title: `[${input.ticketKey}] ${input.heading}: ${input.title}`.slice(0, 256),
      body: [
        `The ${input.heading} of ${input.ticketKey}, in \`${prepared.path}\`, for review.`,
        '',
        '- Review comments (a review, or comments on lines) have it revised: the revision is pushed to this branch.',
        `- Merging this pull request approves the ${input.heading}.`,
        `- While it is open, \`!\` and \`?\` on the ticket are not read at this gate; the approval label on the ticket still approves.`,
      ].join('\n'),
    },
  });
  return intents;
}
