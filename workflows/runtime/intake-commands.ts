import { patched, proxyActivities, proxySinks } from '@temporalio/workflow';
import { clearReviewResponseState, leaveBlocked } from './blocking';
import type { Command } from '../person-commands/command-parser';
import { permittedCommands } from '../read-model/execution-view';
import { ONE_REPLY_PATCH, requestReplyName, type IgnoredRequest } from '../person-commands/ignored-request';
import type { ServiceMetricsSinks } from '../read-model/metrics-sink';
import type { Observation } from '../ledger/observation';
import { requestReply } from '../person-commands/status-reply';
import { pullRequestRefOf, REBASE_MERGED_PATCH, rebaseDecision } from './rebase-decision';
import type { DraftCommand } from '../person-commands/drafts';
import type { DraftEditActivities } from '../../activities/draft-edit-activities';
import { actorIdsOf } from '../person-commands/trusted-actors';
import { applyPosition, positionOf } from './position';
import { NO_DEFINITION, reviewRetryPosition } from './step';
import { nowIso } from './clock';
import { BLOCKED_LABEL, RETRY_LABEL } from '../vocabulary/labels';
import { TRIGGER, TRIGGER_LABEL } from '../vocabulary/command-words';
import type { IntakeContext } from './intake-context';

const { serviceMetrics } = proxySinks<ServiceMetricsSinks>();
const { editDraft } = proxyActivities<DraftEditActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });

/** service:retry at a review-response gate names its label write apart from the resume's (histories from before shared one). */
export const REVIEW_RETRY_OWN_LABELS_PATCH = 'review-retry-own-labels';

/** service:retry as the position reads it: a gate regenerates, a review-response gate goes back to its review, a block resumes. */
export async function retry(
  intake: Pick<IntakeContext, 'state' | 'runtime' | 'ticketKey' | 'definition' | 'effect' | 'timeline' | 'publish' | 'gateWaiting' | 'decide'>,
  mode: 'resume' | 'review_response' | 'regenerate', observation: Observation, command: Command,
) {
  const { state, runtime, ticketKey, definition, effect, timeline, publish, gateWaiting, decide } = intake;
  const now = nowIso();
  if (mode === 'regenerate') {
    await effect(`reply_${state.observations_received}_retry_label`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] });
    return gateCommand(intake, command, observation);
  }
  const removeLabels = (episode: number) => effect(`retry_${episode}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: mode === 'resume' ? [RETRY_LABEL, BLOCKED_LABEL] : [RETRY_LABEL] });
  if (mode === 'review_response') {
    const back = reviewRetryPosition(definition() ?? NO_DEFINITION, positionOf(state.checkpoint, runtime));
    clearReviewResponseState(state);
    applyPosition(state.checkpoint, runtime, back);
    timeline({
      kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: review state cleared, back to ${back.node}`,
      details: { delivery_identity: observation.delivery_identity, force_fresh_invoke: true },
    });
    // A write of its own: under the resume's name, a block at the review gate's new visit resumed by service:retry
    // would plan this key again, the journal would adopt this write, and service:blocked would stay on the ticket.
    if (patched(REVIEW_RETRY_OWN_LABELS_PATCH)) await effect(`review_retry_${state.retry_count}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [RETRY_LABEL] });
    else await removeLabels(state.retry_count);
    return;
  }
  const since = state.waiting?.since;
  if (since) serviceMetrics.waitEnded(Math.max(0, (Date.parse(now) - Date.parse(since)) / 1000));
  const episode = state.retry_count;
  const { resumedAt, code } = leaveBlocked(state, now);
  const here = definition()?.nodes[resumedAt];
  if (state.checkpoint.is_paused && here?.kind === 'gate') gateWaiting(resumedAt, here);
  else state.status = 'running';
  timeline({
    kind: 'transition', occurred_at: now, status: 'resumed', summary: `${RETRY_LABEL}: resumed at ${resumedAt}`,
    details: { from_code: code, delivery_identity: observation.delivery_identity, retry_count: state.retry_count },
  });
  publish();
  await removeLabels(episode);
  await decide({ type: 'resumed' });
}

/** An allowed person's valid command after an unknown one: the block goes, then the command is carried out. */
export async function clearCommandBlock(
  { state, ticketKey, definition, effect, timeline, publish, gateWaiting }: Pick<IntakeContext, 'state' | 'ticketKey' | 'definition' | 'effect' | 'timeline' | 'publish' | 'gateWaiting'>,
  observation: Observation,
) {
  const episode = state.retry_count;
  const { resumedAt, code } = leaveBlocked(state, nowIso(), 'corrected_command');
  const here = definition()?.nodes[resumedAt];
  if (here?.kind === 'gate') gateWaiting(resumedAt, here);
  timeline({
    kind: 'transition', occurred_at: nowIso(), status: 'resumed', summary: `a corrected command cleared the block at ${resumedAt}`,
    details: { from_code: code, delivery_identity: observation.delivery_identity, retry_count: state.retry_count },
  });
  publish();
  await effect(`corrected_${episode}_labels`, { kind: 'tracker.labels', issue_key: ticketKey, add: [], remove: [BLOCKED_LABEL] });
}

/** `/service remove|exclude|update|add` at a draft gate: edit the draft in place, answer, re-post it. */
export async function draftEdit(
  { state, runtime, artifacts, outputs, ticketKey, definition, visit, timeline, runIntents }:
    Pick<IntakeContext, 'state' | 'runtime' | 'artifacts' | 'outputs' | 'ticketKey' | 'definition' | 'visit' | 'timeline' | 'runIntents'>,
  command: DraftCommand, observation: Observation,
) {
  const node = state.checkpoint.current_node;
  const spec = definition()?.nodes[node];
  if (spec?.kind !== 'gate' || !spec.artifact) return;
  const slot = `${node}:${visit()}`;
  const edits = (runtime.draft_edits ??= {});
  const edition = (edits[slot] ?? 0) + 1;
  edits[slot] = edition;
  const result = await editDraft({ ticketKey, artifact: spec.artifact, outputs, command, written: observation.facts.comment?.body, edition });
  if (result.ok) {
    outputs[result.station] = result.output;
    const previous = artifacts[spec.artifact];
    artifacts[spec.artifact] = { text: result.text, digest: result.digest ?? '', version: (previous?.version ?? 0) + 1, updated_at: nowIso() };
  }
  timeline({
    kind: 'command_decision', occurred_at: nowIso(), status: result.ok ? 'applied' : 'rejected',
    summary: result.ok ? `draft edited at ${node} (${command.type})` : `draft edit refused at ${node}: ${result.reason}`,
    details: { node, command: command.type, edition },
  });
  await runIntents(result.intents);
}

/**
 * `/service rebase` (REFERENCE "Commands"): the rebase station runs now and returns to where the ticket stood (a
 * gate pauses again). A blocked ticket is answered instead: its saved node must be resumed with service:retry first.
 */
export async function rebase(
  { state, ticketKey, definition, timeline, reply, decide }: Pick<IntakeContext, 'state' | 'ticketKey' | 'definition' | 'timeline' | 'reply' | 'decide'>,
  command: Extract<Command, { type: 'rebase' }>, observation: Observation, replyName: string,
) {
  const from = state.checkpoint.current_node;
  // Patched: histories from before ran the station on a merged pull request and replied with the bare reason.
  const mergedAware = patched(REBASE_MERGED_PATCH);
  const decision = rebaseDecision(definition(), state, command.pull_request ? pullRequestRefOf(command.pull_request, observation) : null, { mergedAware });
  if (decision.type === 'refuse') {
    timeline({ kind: 'command_decision', occurred_at: nowIso(), status: 'rejected', summary: `/service rebase at ${from}: ${decision.reason}`, details: { node: from, delivery_identity: observation.delivery_identity } });
    // Refused where the ticket stands: answered once per position, like an ignored request (patched).
    // Asked as people wrote it: the reply quotes it, and the reply's effect name is derived from it.
    const asked = TRIGGER_LABEL[TRIGGER.rebase];
    const request: IgnoredRequest = { asked, on: observation.source_system === 'scmhost' ? 'pull_request' : 'ticket', remove_labels: [] };
    const name = patched(ONE_REPLY_PATCH) ? requestReplyName(request, { is_blocked: state.checkpoint.is_blocked, retry_count: state.retry_count }) : `${replyName}_rebase`;
    const body = mergedAware
      ? requestReply({ ticketKey, asked, reason: decision.reason, state, permitted: permittedCommands(state), removedLabels: [] })
      : `❌ ${decision.reason}`;
    await reply(name, observation, body);
    return;
  }
  await decide({ type: 'rebase', node: decision.node, target: decision.target });
}

/** A command at a gate: move by the outcome the gate maps, or act in place. */
export function gateCommand({ decide }: Pick<IntakeContext, 'decide'>, command: Command, observation: Observation) {
  return decide({ type: 'command', command, by: actorIdsOf(observation)[0] ?? observation.source_system, delivery_identity: observation.delivery_identity });
}
