import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../../activities/effect-activities';
import { parseRepositoryRegistry } from '../../../src/config/repository-registry';
import { normaliseTrackerEvent } from '../../../src/ingress/tracker/normalise-tracker-event';
import { trackerWebhookSchema } from '../../../src/ingress/tracker/tracker-webhook-schema';
import { createLogger } from '../../../src/logging/logger';
import { createGitLabRepositories } from '../../../src/providers/gitlab/gitlab-repositories';
import { createScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import type { AdfNode } from '../../../src/providers/tracker/adf/adf-types';
import { createTrackerClient } from '../../../src/providers/tracker/tracker-client';
import { trackerRichTextToMarkdown } from '../../../src/providers/tracker/rich-text-to-markdown';
import { adfToJiraWiki } from '../../../src/sandbox/tracker-simulator/adf-to-jira-wiki';
import { startGitLabSimulator, type GitLabSimulator } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';
import { ticketCommentRequest } from '../../../workflows/person-commands/command-comments';
import { parseCommand, type CommandPosition } from '../../../workflows/person-commands/command-parser';
import { BUILT_IN_DEFINITIONS } from '../../../workflows/built-in-definitions';
import { acceptTable } from '../../../workflows/built-in-definitions/definition-types';
import { gateTable } from '../../../workflows/runtime/node-traits';
import type { Observation, WorkflowKind } from '../../../workflows/ledger/observation';
import { HOSTILE_COMMAND_TEXTS } from '../../fixtures/hostile-command-lines';
import { fixture } from '../../helpers/fixtures';

/**
 * Every hostile text of the corpus is posted the way the service posts it (the effect activities, over HTTP, to the
 * tracker, GitHub and GitLab simulators) and read back the way the service reads it (Jira: the REST reader and the
 * webhook normaliser, which turn ADF into Markdown; the source hosts: the body as stored, which their APIs return as
 * posted). What comes back must hold no command: not as a whole comment, and not from any line on, since a line is
 * a comment start for a reader that splits or quotes.
 */

const EMAIL = 'bot@example.com';
const TRACKER_TOKEN = 'tracker-token-roundtrip-123456';
const GITHUB_TOKEN = 'ghp_postedTextRoundTrip0123456789abcdef';
const GITLAB_TOKEN = 'glpat-postedTextRoundTrip0123';

/** Where a line can start, for any reader: the comment grammar's own line ends and the ones a renderer may break at. */
const LINE_START = /(?:^|[\n\r\v\f\u0085\u2028\u2029])/g;

/** What the comment grammar reads from each line start on; empty when nothing is a command. */
function commandsIn(body: string): string[] {
  const found: string[] = [];
  for (const match of body.matchAll(LINE_START)) {
    const from = match.index + match[0].length;
    const request = ticketCommentRequest(body.slice(from));
    if (request) found.push(`${request} from ${JSON.stringify(body.slice(from, from + 40))}`);
  }
  return found;
}

/** A renderer that drops every mark, link and block marker: each block and hard break starts a line. */
function plainText(node: AdfNode): string {
  if (typeof node.text === 'string') return node.text;
  if (node.type === 'hardBreak') return '\n';
  const inner = (node.content ?? []).map(plainText).join('');
  return (node.content ?? []).some((child) => child.type !== 'text' && child.type !== 'hardBreak') ? inner : `${inner}\n`;
}

function at(current_node: string, workflow_kind: WorkflowKind): CommandPosition {
  return {
    workflow_kind, current_node, accepts: acceptTable(BUILT_IN_DEFINITIONS[workflow_kind]), gates: gateTable(BUILT_IN_DEFINITIONS[workflow_kind]), is_blocked: false, is_paused: true,
    has_pull_request: true, draft_item_ids: [1, 2, 3], rca_option_count: 3, proposal_review: true,
  };
}
/** Positions where each comment word means something: a command there is not ignored for its place. */
const POSITIONS = [at('prd_approval_gate', 'feature'), at('plan_approval_gate', 'feature'), at('rca_option_gate', 'bug'), at('human_review_gate', 'feature')];

/**
 * What the command parser made of a delivered comment, where that is a command read from its text: anything but
 * conversation. A person's note on a merge request is that change's review (SPEC 3.2), whatever it says; that is
 * the loop guard's to drop for the service's own notes, not a command.
 */
function intake(observation: Observation): string[] {
  return POSITIONS.map((position) => parseCommand(observation, position))
    .filter((decision) => decision.kind === 'ignore' ? !/conversation/.test(decision.reason) : decision.kind !== 'command' || decision.command.type !== 'review_changes_requested')
    .map((decision) => JSON.stringify(decision));
}

type MergeRequest = ReturnType<GitLabSimulator['state']['project']>['mergeRequests'][number];

describe('posted text read back by every reader holds no command', () => {
  let tracker: TrackerSimulator;
  let github: ScmhostSimulator;
  let gitlab: GitLabSimulator;
  let effects: ReturnType<typeof createEffectActivities>;
  const webhook = fixture<Record<string, unknown> & { comment: Record<string, unknown> }>('tracker/jira-comment-created.json');

  beforeAll(async () => {
    [tracker, github, gitlab] = await Promise.all([
      startTrackerSimulator({ projects: ['PROJ'], credentials: { email: EMAIL, apiToken: TRACKER_TOKEN } }),
      startScmhostSimulator({ repositories: ['acme/api'], tokens: { [GITHUB_TOKEN]: 'service-bot' } }),
      startGitLabSimulator({ tokens: { [GITLAB_TOKEN]: 'service-bot' }, projects: ['platform/billing'] }),
    ]);
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_TOKEN' } },
      repositories: { 'platform/billing': { provider: 'gitlab', connection: 'gl', namespace: 'platform/billing' } },
    }));
    const scmhost = createScmhostClient({ token: GITHUB_TOKEN, baseUrl: github.url, timeoutMs: 5_000, writeSpacingMs: 0 });
    effects = createEffectActivities({
      tracker: createTrackerClient({ baseUrl: tracker.url, email: EMAIL, apiToken: TRACKER_TOKEN, timeoutMs: 5_000 }),
      scmhost: async () => scmhost,
      gitlab: createGitLabRepositories(registry, { env: { GL_TOKEN: GITLAB_TOKEN } }),
      logger: createLogger({ level: 'error', write: () => undefined }),
    });
  });
  afterAll(async () => Promise.all([tracker?.close(), github?.close(), gitlab?.close()]));

  const perform = async (key: string, operation: Record<string, unknown>) => {
    const result = await effects.performEffect({ idempotency_key: key, attempt: 1, operation } as never);
    expect(result, `${String(operation.kind)} was posted`).toMatchObject({ status: 'succeeded' });
    return result;
  };

  /** Posts `text` by every effect that carries a person-readable text, and returns what each reader gets back. */
  async function postEverywhere(name: string, text: string): Promise<Array<{ where: string; body: string; observation?: Observation }>> {
    const key = name.replace(/[^a-z0-9]+/gi, '-');
    const issue = tracker.state.createIssue({ projectKey: 'PROJ', issueType: 'Feature', summary: name });
    await perform(`${key}:jira-comment`, { kind: 'tracker.comment', issue_key: issue.key, body: text });
    const createdIssue = await perform(`${key}:jira-issue`, { kind: 'tracker.create_issue', project_key: 'PROJ', issue_type: 'Task', summary: 'a task', description: text, labels: [`service:x-${key}`.slice(0, 60)], identity_label: `service:x-${key}`.slice(0, 60) });

    // A pull request and a merge request of its own, each with a reviewer's thread to reply in.
    const repo = github.state.repo('acme', 'api');
    github.state.pushBranch(repo, `service/${key}`);
    const pull = github.state.createPull(repo, { title: name, head: `service/${key}`, base: 'main' }, github.state.user('service-bot'));
    github.state.submitReview(repo, pull.number, { state: 'COMMENTED', body: 'see inline', comments: [{ path: 'README.md', line: 1, body: 'rename this' }] });
    const reviewRoot = github.state.reviewComments.at(-1)!.id;
    const gh = { repository: 'acme/api', number: pull.number };
    const githubBefore = { comments: github.state.issueComments.length, reviews: github.state.reviews.length, lines: github.state.reviewComments.length };
    await perform(`${key}:gh-comment`, { kind: 'scmhost.pr_comment', ...gh, body: text });
    await perform(`${key}:gh-review`, { kind: 'scmhost.pr_review', ...gh, event: 'COMMENT', body: text, comments: [{ path: 'README.md', line: 1, body: text }] });
    await perform(`${key}:gh-reply`, { kind: 'scmhost.review_reply', ...gh, comment_id: reviewRoot, body: text });

    const project = gitlab.state.project('platform/billing');
    gitlab.state.push(project, `service/${key}`);
    const mr: MergeRequest = { id: gitlab.state.id(), iid: project.mergeRequests.length + 1, title: name, description: '', state: 'opened', sourceBranch: `service/${key}`, targetBranch: 'main', author: 'service-bot', createdAt: 't', updatedAt: 't', notes: [] };
    project.mergeRequests.push(mr);
    const thread = gitlab.state.startDiscussion(mr, 'Why CSV?', 'octo-reviewer').discussionId;
    const gl = { repository: 'platform/billing', number: mr.iid };
    await perform(`${key}:gl-note`, { kind: 'scmhost.pr_comment', ...gl, body: text });
    await perform(`${key}:gl-review`, { kind: 'scmhost.pr_review', ...gl, event: 'COMMENT', body: text, comments: [{ path: 'README.md', line: 1, body: text }] });
    await perform(`${key}:gl-reply`, { kind: 'scmhost.review_reply', ...gl, comment_id: thread, body: text });

    const client = createTrackerClient({ baseUrl: tracker.url, email: EMAIL, apiToken: TRACKER_TOKEN });
    const [comment] = await client.getComments(issue.key);
    const created = await client.getIssue(createdIssue.evidence!.ids!.issue_key!);
    // Jira Cloud's webhook carries the comment as wiki markup rendered from the ADF it stores.
    const delivered = normaliseTrackerEvent(trackerWebhookSchema.parse({ ...webhook, comment: { ...webhook.comment, body: adfToJiraWiki(comment!.bodyAdf) } }));
    expect(delivered.kind).toBe('observation');
    const observation = delivered.kind === 'observation' ? delivered.observation : undefined;
    // A comment on a pull request or merge request as the intake hands it to the command parser.
    const onChange = (source_system: 'scmhost' | 'gitlab', body: string): Observation => ({
      delivery_identity: 'identity', source: 'webhook', source_system, event: source_system === 'gitlab' ? 'note' : 'issue_comment', resource: { kind: 'x', id: '1' },
      revision: null, fingerprint: 'f', ticket_key: 'PROJ-1', observed_at: null, received_at: '2026-11-23T08:00:00.000Z',
      facts: { action: 'created', repository: gh.repository, pull_request: { number: pull.number, head_ref: `service/${key}` }, comment: { id: 'c', body } },
    });
    const lines = github.state.reviewComments.slice(githubBefore.lines);
    return [
      { where: 'Jira comment, REST reader', body: comment!.body },
      { where: 'Jira comment, webhook', body: observation?.facts.comment?.body ?? '', ...(observation ? { observation } : {}) },
      { where: 'Jira comment, plain rendering of its ADF', body: plainText(comment!.bodyAdf!) },
      { where: 'Jira issue description, REST reader', body: created.description },
      { where: 'Jira issue description, wiki markup of a webhook', body: trackerRichTextToMarkdown(adfToJiraWiki(created.descriptionAdf)) },
      { where: 'Jira issue description, plain rendering', body: plainText(created.descriptionAdf!) },
      ...github.state.issueComments.slice(githubBefore.comments).map((c) => ({ where: 'GitHub comment', body: c.body, observation: onChange('scmhost', c.body) })),
      ...github.state.reviews.slice(githubBefore.reviews).filter((r) => r.body).map((r) => ({ where: 'GitHub review', body: r.body })),
      ...lines.filter((c) => !c.inReplyToId).map((c) => ({ where: 'GitHub review line comment', body: c.body, observation: onChange('scmhost', c.body) })),
      ...lines.filter((c) => c.inReplyToId).map((c) => ({ where: 'GitHub review reply', body: c.body, observation: onChange('scmhost', c.body) })),
      ...mr.notes.filter((n) => n.author === 'service-bot').map((n) => ({ where: n.type === 'DiffNote' ? 'GitLab review thread' : 'GitLab note', body: n.body, observation: onChange('gitlab', n.body) })),
    ];
  }

  it.each(HOSTILE_COMMAND_TEXTS.map((entry) => [entry.name, entry]))('%s', async (name, entry) => {
    const outputs = await postEverywhere(name, entry.text);
    expect(outputs.map((o) => o.where).sort()).toEqual([
      'GitHub comment', 'GitHub review', 'GitHub review line comment', 'GitHub review reply', 'GitLab note', 'GitLab note', 'GitLab note', 'GitLab review thread',
      'Jira comment, REST reader', 'Jira comment, plain rendering of its ADF', 'Jira comment, webhook',
      'Jira issue description, REST reader', 'Jira issue description, plain rendering', 'Jira issue description, wiki markup of a webhook',
    ]);
    for (const output of outputs) {
      expect(commandsIn(output.body), `${output.where}: ${JSON.stringify(output.body)}`).toEqual([]);
      if (output.observation) expect(intake(output.observation), output.where).toEqual([]);
    }
  });
});
