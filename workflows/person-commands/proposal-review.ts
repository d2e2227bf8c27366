import type { EffectOperation } from '../effects/effect-types';
import type { Observation } from '../ledger/observation';
import type { Runtime } from '../runtime/ticket-state';
import type { ProposalKind } from '../built-in-definitions/definition-types';
import { formatPullRequestRef, sourceHostOf } from '../vocabulary/pull-request-ref';

/**
 * Proposal review (REFERENCE "Source host conventions"): with `service.prd_proposals_repo` set, the PRD and the spec
 * are pull requests on `service/prd/<key>` and `service/spec/<key>`. These pure helpers name the branches and files
 * (shared by the stations that write them and the workflow that reads the news about them) and keep the proposal
 * pull requests apart from the change's pull requests: a proposal never counts towards delivery, and while one is
 * open the ticket's `!` and `?` at its gate are ignored (the review happens on the pull request).
 *
 * Workflow code: no I/O, no clock.
 */

export type { ProposalKind };

/** Which gate reviews each kind is the definition's (a gate's `reviews_proposal`), not this table's. */
export const PROPOSAL_KINDS: Readonly<Record<ProposalKind, { station: string; file: string }>> = {
  prd: { station: 'generate_prd', file: 'prd.md' },
  spec: { station: 'generate_spec', file: 'design.md' },
};

const PROPOSAL_BRANCH = /^(?:refs\/heads\/)?service\/(prd|spec)\/[^/]+$/i;

export function proposalBranch(kind: ProposalKind, ticketKey: string): string {
  return `service/${kind}/${ticketKey.toLowerCase()}`;
}

/** `<path>/<KEY>/prd.md` or `<path>/<KEY>/design.md`. */
export function proposalFile(kind: ProposalKind, basePath: string, ticketKey: string): string {
  return `${basePath.replace(/\/+$/, '')}/${ticketKey.toUpperCase()}/${PROPOSAL_KINDS[kind].file}`;
}

export function isProposalBranch(ref: string | undefined | null): boolean {
  return PROPOSAL_BRANCH.test(ref ?? '');
}

/** The kind of proposal a head branch carries (`service/prd/...`), so a late PRD merge cannot approve the spec. */
export function proposalKindOfBranch(headRef: string | undefined): ProposalKind | undefined {
  const ref = headRef?.toLowerCase();
  return ref ? (Object.keys(PROPOSAL_KINDS) as ProposalKind[]).find((kind) => ref.startsWith(`service/${kind}/`)) : undefined;
}

/** What a document station reports about the proposal it wrote (its `data.proposal`). */
export interface ProposalOutput {
  repository: string;
  branch: string;
  path: string;
}

export interface ProposalPullRequest {
  /** `owner/repo#12`. */
  pull_request: string;
  state: 'open' | 'merged' | 'closed';
}

type ProposalRuntime = Pick<Runtime, 'proposals'>;

/**
 * A succeeded write that opened or adopted a pull request on a proposal branch: remembered as the proposal of that
 * branch. Returns true when it was one, so the caller keeps it out of the ticket's pull requests.
 */
export function noteProposalOpened(runtime: ProposalRuntime, operation: EffectOperation, pullRequest: string): boolean {
  if (operation.kind !== 'scmhost.open_pr' || !isProposalBranch(operation.head)) return false;
  const proposals = (runtime.proposals ??= {});
  const known = proposals[operation.head];
  if (!known || known.pull_request !== pullRequest || known.state === 'closed') proposals[operation.head] = { pull_request: pullRequest, state: 'open' };
  return true;
}

/**
 * News about a proposal pull request (opened, merged, closed, reopened, reviewed). Returns true when the observation
 * is about a proposal branch, so the caller does not index it as one of the change's pull requests.
 */
export function noteProposalEvent(runtime: ProposalRuntime, observation: Observation): boolean {
  const pr = observation.facts.pull_request;
  if (!pr || observation.source_system === 'tracker' || !isProposalBranch(pr.head_ref)) return false;
  const repository = observation.facts.repository;
  if (!repository) return true;
  const branch = pr.head_ref!.replace(/^refs\/heads\//, '');
  const ref = formatPullRequestRef(repository, pr.number, sourceHostOf(observation.source_system));
  const proposals = (runtime.proposals ??= {});
  const action = observation.facts.action ?? '';
  if (pr.merged === true) proposals[branch] = { pull_request: ref, state: 'merged' };
  else if (action === 'closed' || action === 'close') proposals[branch] = { pull_request: ref, state: 'closed' };
  else if (action === 'opened' || action === 'reopened' || action === 'reopen' || action === 'open') proposals[branch] = { pull_request: ref, state: 'open' };
  return true;
}

function proposalOutputOf(outputs: Record<string, unknown>, kind: ProposalKind): ProposalOutput | undefined {
  const proposal = (outputs[PROPOSAL_KINDS[kind].station] as { proposal?: unknown } | undefined)?.proposal as Partial<ProposalOutput> | undefined;
  return proposal && typeof proposal.branch === 'string' && typeof proposal.repository === 'string' && typeof proposal.path === 'string'
    ? { repository: proposal.repository, branch: proposal.branch, path: proposal.path }
    : undefined;
}

/**
 * What the command parser needs to know where the ticket stands: whether proposal review is on for this ticket (a
 * document station wrote a proposal), and the proposal pull request open at this gate, if any. `reviewed`: the
 * proposal the gate here reviews (its `reviews_proposal` trait), if any.
 */
export function proposalPosition(reviewed: ProposalKind | null | undefined, outputs: Record<string, unknown>, runtime: ProposalRuntime): { proposal_review: boolean; proposal_open?: string } {
  const review = (Object.keys(PROPOSAL_KINDS) as ProposalKind[]).some((kind) => proposalOutputOf(outputs, kind) !== undefined);
  const kind = reviewed ?? undefined;
  const written = kind ? proposalOutputOf(outputs, kind) : undefined;
  const pull = written ? runtime.proposals?.[written.branch] : undefined;
  return { proposal_review: review, ...(pull?.state === 'open' ? { proposal_open: pull.pull_request } : {}) };
}
