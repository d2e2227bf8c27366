import { z } from 'zod';
import type { PullRequest, RepoRef, Review, ReviewThread } from '../../../src/providers/scmhost/scmhost-types';
import type { EffectIntent, StationActivity, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { createContainerStations, type ContainerStationDeps } from '../container-station';
import { runModelStep, type ModelStepDeps } from '../planning/model-step';
import { stationFailure } from '../station-failure';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import { issueEffectName } from './pull-request-stations';
import { decisionsFor, feedbackText, openFeedback, type FeedbackItem } from './review-feedback';
import { openMergeRequestFeedback } from './merge-request-feedback';
import type { GitLabClient } from '../../../src/providers/gitlab/gitlab-client';
import type { SyncDescription } from './pull-request-description-sync';

/**
 * implement_review (REFERENCE "Source host conventions", review response): the open review feedback of the
 * ticket's pull requests is classified by a model (policy key implement_review_analysis); accepted items are changed
 * by an agent in a container (implement_review_fix) and pushed as `[KEY] review: address PR feedback`; every thread
 * gets a reply (what was done, or why not, or a question). Contested or unclear items send the ticket to
 * review_response_gate, where a person answers. On GitLab a thread is answered in its discussion, and resolved once
 * its change is pushed; plain comments on the merge request are answered together in one note.
 */

export interface ReviewScmhost {
  getPullRequest(ref: RepoRef, number: number): Promise<PullRequest>;
  listReviews(ref: RepoRef, number: number): Promise<Review[]>;
  listReviewThreads(ref: RepoRef, number: number): Promise<ReviewThread[]>;
  getAuthenticatedUser(): Promise<{ login: string }>;
}

export interface ReviewStationDeps extends ModelStepDeps {
  /** GitHub; unset when only GitLab projects are configured. */
  scmhost?: () => Promise<ReviewScmhost>;
  /** GitLab projects of the repository registry: the discussions of their merge requests. */
  gitlab?: (repository: string) => { entry: { namespace: string }; client: Pick<GitLabClient, 'getMergeRequest' | 'listMergeRequestDiscussions' | 'serviceUsername'> } | undefined;
  /** SCMHOST_BOT_LOGIN; the token's own login when unset. */
  botLogin?: string;
  container: ContainerStationDeps;
  /** Rewrites the pull request's description after pushed review changes (sync_pr_description). */
  syncDescription?: SyncDescription;
}

const REVIEW_NOTES = '.service/review_fix.md';
const ANSWERED_LIMIT = 300;

const analysisSchema = z.object({
  items: z.array(z.object({
    id: z.string().describe('The item id as given, e.g. t12 or r7'),
    decision: z.enum(['accept', 'contest', 'clarify', 'ignore']),
    reply: z.string().describe('What to answer the reviewer (required for contest and clarify; optional otherwise)'),
    change: z.string().describe('For accept: the change to make, in one or two sentences'),
  })),
});

const refOf = (repository: string): RepoRef => {
  const [owner, repo] = repository.split('/');
  return { owner: owner!, repo: repo! };
};

type Decided = ReturnType<typeof decisionsFor>[number];

export function reviewFixText(input: StationInput, repository: string, accepted: readonly Decided[]): string {
  return [
    `Ticket ${input.ticket_key}: make the changes the code review of the pull request in ${repository} asked for, and that you accepted.`,
    '',
    '## Accepted review items',
    feedbackText(accepted),
    '',
    '## The changes decided on',
    ...accepted.map((item) => `- ${item.id}: ${item.change || 'as the reviewer asked'}`),
    '',
    `Write \`${REVIEW_NOTES}\`: for each item id, what you changed.`,
  ].join('\n');
}

/** The reply in a review thread, or the line about a review's text: what was done, or what the model said. */
export function replyFor(item: Decided, sha: string | undefined): string | undefined {
  if (item.decision === 'ignore') return undefined;
  if (item.decision === 'accept') return `Done${sha ? ` in ${sha.slice(0, 7)}` : ''}: ${item.change || 'changed as asked'}${item.reply ? `\n\n${item.reply}` : ''}`;
  return item.reply;
}

/**
 * The answers to the decided items: a reply in each review thread, and one pull request comment per pull request
 * for review bodies. A review body whose answer is the same text as a thread reply (a body that only points at its
 * line comments) is answered in the thread alone, once. A resolvable thread (GitLab) whose change was accepted and
 * pushed is resolved after its reply: what the reviewer asked for is done. Contested and unclear threads stay open.
 */
export function reviewAnswers(decided: readonly Decided[], commits: ReadonlyMap<string, string>): EffectIntent[] {
  const effects: EffectIntent[] = [];
  const threadReplies = new Set<string>();
  for (const item of decided.filter((d) => d.kind === 'thread')) {
    const body = replyFor(item, commits.get(item.repository));
    if (!body) continue;
    const resolve = item.resolvable === true && item.decision === 'accept' && commits.has(item.repository);
    effects.push({ name: `reply_${item.comment_id}`, operation: { kind: 'scmhost.review_reply', repository: item.repository, number: item.number, comment_id: item.comment_id!, body, ...(resolve ? { resolve } : {}) } });
    threadReplies.add(`${item.pull_request}\n${body}`);
  }
  const reviewItems = decided.filter((d) => d.kind === 'review' && d.decision !== 'ignore' && !threadReplies.has(`${d.pull_request}\n${replyFor(d, commits.get(d.repository))}`));
  for (const pullRequest of [...new Set(reviewItems.map((d) => d.pull_request))]) {
    const mine = reviewItems.filter((d) => d.pull_request === pullRequest);
    const body = ['On the review:', ...mine.map((d) => `- ${d.conversation[0]!.split(':')[0]}: ${replyFor(d, commits.get(d.repository))}`)].join('\n');
    effects.push({ name: issueEffectName('answer_reviews', pullRequest), operation: { kind: 'scmhost.pr_comment', repository: mine[0]!.repository, number: mine[0]!.number, body } });
  }
  return effects;
}

export function createReviewStations(deps: ReviewStationDeps): Record<string, StationActivity> {
  const fixInContainer = createContainerStations(deps.container)({
    skill: 'implement_review_fix',
    step: 'implement_review',
    task: (input) => reviewFixText(input, String(input.params?.repository), (input.params?.accepted ?? []) as Decided[]),
    outputs: () => [REVIEW_NOTES],
    commitMessage: (input) => `[${input.ticket_key}] review: address PR feedback`,
  });
  let login: string | undefined = deps.botLogin;

  return {
    implement_review: async (input) => {
      const previous = (input.outputs.implement_review as { answered?: string[] } | undefined)?.answered ?? [];
      const answered = new Set(previous);
      const items: FeedbackItem[] = [];
      const heads = new Map<string, string>();
      for (const ref of input.pull_requests ?? []) {
        const parsed = parsePullRequestRef(ref);
        if (!parsed) continue;
        const pull = { pull_request: ref, repository: parsed.repository, number: parsed.number };
        const gitlab = deps.gitlab?.(parsed.repository);
        if (gitlab) {
          const mr = await gitlab.client.getMergeRequest(gitlab.entry.namespace, parsed.number);
          if (mr.state !== 'opened') continue;
          heads.set(parsed.repository, mr.sha);
          items.push(...openMergeRequestFeedback(pull, await gitlab.client.listMergeRequestDiscussions(gitlab.entry.namespace, parsed.number), { bot: await gitlab.client.serviceUsername(), answered }));
          continue;
        }
        if (parsed.host !== 'github' || !deps.scmhost) continue;
        const scmhost = await deps.scmhost();
        login ??= (await scmhost.getAuthenticatedUser()).login;
        const repo = refOf(parsed.repository);
        const github = await scmhost.getPullRequest(repo, parsed.number);
        if (github.state !== 'open') continue;
        heads.set(parsed.repository, github.headSha);
        const [reviews, threads] = await Promise.all([scmhost.listReviews(repo, parsed.number), scmhost.listReviewThreads(repo, parsed.number)]);
        items.push(...openFeedback(pull, reviews, threads, { bot: login, answered }));
      }
      if (items.length === 0) {
        return { outcome: 'addressed', data: { answered: previous, decisions: [] }, summary: 'no open review feedback on the pull requests' };
      }

      const analysis = await runModelStep(deps, input, {
        key: 'implement_review_analysis', skill: 'implement_review_analysis', schema: analysisSchema,
        prompt: [`Ticket ${input.ticket_key}: review feedback on its pull requests. Decide every item.`, '', feedbackText(items)].join('\n'),
      });
      const decided = decisionsFor(items, analysis.object.items);
      const effects: EffectIntent[] = [];
      const commits = new Map<string, string>();
      let usage = { ...analysis.usage };
      for (const repository of [...new Set(decided.filter((d) => d.decision === 'accept').map((d) => d.repository))]) {
        const accepted = decided.filter((d) => d.decision === 'accept' && d.repository === repository);
        const result: StationResult = await fixInContainer({ ...input, model_key: 'implement_review_fix', params: { ...input.params, repository, accepted } });
        const data = result.data as { commit_sha: string | null; base_sha: string; resumed: boolean; agent: { message?: string } };
        if (result.outcome === 'agent_failed' || result.outcome === 'outputs_missing') {
          throw stationFailure({ code: result.outcome === 'agent_failed' ? 'agent_failed' : 'agent_output_missing', message: `the review fix agent in ${repository} ${result.outcome === 'agent_failed' ? `gave up: ${data.agent.message ?? 'no reason given'}` : `did not write ${REVIEW_NOTES}`}`, recovery: 'make the change by hand on the ticket branch and answer the review, then add service:retry' });
        }
        // A run after a crash finds its own earlier commit on the branch (the head moved past the reviewed one).
        const alreadyPushed = !data.commit_sha && data.resumed && data.base_sha !== heads.get(repository);
        if (!data.commit_sha && !alreadyPushed) {
          throw stationFailure({ code: 'nothing_changed', message: `the review fix agent changed nothing in ${repository} for ${accepted.map((a) => a.id).join(', ')}`, recovery: 'make the change by hand on the ticket branch and answer the review, then add service:retry' });
        }
        commits.set(repository, data.commit_sha ?? data.base_sha);
        effects.push(...(result.effects ?? []).map((e) => ({ ...e, name: issueEffectName(e.name, repository) })));
        if (result.usage) usage = { ...usage, input_tokens: usage.input_tokens + result.usage.input_tokens, output_tokens: usage.output_tokens + result.usage.output_tokens };
        if (data.commit_sha && deps.syncDescription) {
          const notes = (result.data as { outputs?: Record<string, string> }).outputs?.[REVIEW_NOTES] ?? result.summary ?? '';
          const sync = await deps.syncDescription(input, { repository, number: accepted[0]!.number }, `Changes a reviewer asked for:\n${accepted.map((a) => `- ${a.change || a.conversation[0]}`).join('\n')}\n\n${notes}`);
          effects.push(sync.effect);
          usage = { ...usage, input_tokens: usage.input_tokens + sync.usage.input_tokens, output_tokens: usage.output_tokens + sync.usage.output_tokens };
        }
      }

      effects.push(...reviewAnswers(decided, commits));

      const open = decided.filter((d) => d.decision === 'contest' || d.decision === 'clarify');
      const counts = (['accept', 'contest', 'clarify', 'ignore'] as const).map((d) => `${decided.filter((x) => x.decision === d).length} ${d}`).join(', ');
      return {
        outcome: open.length > 0 ? 'contested' : 'addressed',
        effects,
        data: {
          answered: [...previous, ...decided.map((d) => d.key)].slice(-ANSWERED_LIMIT),
          decisions: decided.map((d) => ({ id: d.id, pull_request: d.pull_request, decision: d.decision })),
          commits: Object.fromEntries(commits),
          contested: open.map((d) => d.id),
        },
        usage,
        summary: `review feedback: ${counts}${commits.size ? `; pushed to ${[...commits.keys()].join(', ')}` : ''}`,
      };
    },
  };
}
