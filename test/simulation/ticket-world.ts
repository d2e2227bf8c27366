import type { Command } from '../../workflows/person-commands/command-types';
import { nodeAccepts, type DefinitionNode, type StationNode, type WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import type { Observation, ObservationFacts } from '../../workflows/ledger/observation';
import type { EffectIntent } from '../../workflows/runtime/station-types';
import type { TicketState } from '../../workflows/runtime/ticket-state';
import { rcaOptionCount } from '../../workflows/runtime/routers';
import { APPROVAL_LABELS, RETRY_LABEL, STAGE_LABELS, STOP_LABEL, YOLO_LABEL } from '../../workflows/vocabulary/labels';
import { TRIGGER, TRIGGER_LABEL } from '../../workflows/vocabulary/command-words';
import { COMMAND_FOR_OUTCOME } from '../unit/workflows/runtime/fixtures';
import { Rng } from './prng';

/**
 * The world around one simulated ticket: the people, the tracker, the source host and the stations. It decides what
 * arrives and when (deliveries in any order, repeated, redelivered, contradicting), what stations return and which
 * writes fail, all from the seed's generator. It never reads the step function: it reads only what the driver's
 * state shows (where the ticket stands, its pull requests, the stations' outputs), as people and providers would.
 */

export const TICKET_KEY = 'ACME-1';
export const RECEIVED_AT = '2025-01-01T00:00:00.000Z';
const REPOSITORIES = ['acme/app', 'acme/api'] as const;
/** A pull request nobody of the service opened but that a delivery routes to the ticket (a person's PR naming it). */
const STRAY_PULL_REQUEST = 'acme/other#99';
const PROPOSALS_REPOSITORY = 'acme/proposals';
const PROPOSALS = { prd: { branch: 'service/prd/acme-1', number: 50 }, spec: { branch: 'service/spec/acme-1', number: 51 } } as const;

/** What arrives at the ticket workflow: a delivery the ledger accepted or found contradicting, or a raw command. */
export interface Arrival {
  observation: Observation;
  decision: 'accepted' | 'conflict';
  /**
   * A command handed to the step as the driver's `gateCommand` does, without the command boundary judging it first:
   * how the simulation offers every command type at every node, accepted there or not.
   */
  raw?: Command;
  /** One line for the trace. */
  note: string;
}

/** What a station activity ended with, before the driver turns it into an event (station-runner.ts runStation). */
export type StationEnd =
  | { type: 'result'; outcome: string; data?: Record<string, unknown>; intents: EffectIntent[] }
  | { type: 'failure'; code: string; message: string; intents: EffectIntent[] }
  | { type: 'invalid'; message: string }
  | { type: 'error'; message: string };

export interface StationRun {
  node: string;
  visit: number;
  spec: StationNode;
}

function refParts(ref: string): { repository: string; number: number } {
  const [repository, number] = ref.split('#');
  return { repository: repository!, number: Number(number) };
}

export function openedPullRequestRef(repository: string): string {
  const index = (REPOSITORIES as readonly string[]).indexOf(repository);
  return `${repository}#${index >= 0 ? index + 1 : 9}`;
}

export function proposalPullRequestRef(branch: string): string {
  const proposal = Object.values(PROPOSALS).find((p) => p.branch === branch);
  return `${PROPOSALS_REPOSITORY}#${proposal?.number ?? 59}`;
}

export class TicketWorld {
  private sequence = 0;
  private readonly recent: Arrival[] = [];

  constructor(
    private readonly rng: Rng,
    readonly ticket: number,
    readonly definition: WorkflowDefinition,
    /** The feature's PRD and spec are reviewed as proposal pull requests (service.prd_proposals_repo set). */
    readonly proposals: boolean,
    /**
     * How orderly this ticket's world is, in (0, 1): the share of deliveries that mean something where the ticket
     * stands, and the complement of how often stations fail. Calm worlds reach the deep nodes, rough ones the corners.
     */
    readonly calm: number,
  ) {}

  // ------------------------------------------------------------------------------------------------------------
  // Deliveries.

  private observation(source_system: Observation['source_system'], event: Observation['event'], facts: ObservationFacts): Observation {
    this.sequence += 1;
    const id = `t${this.ticket}-d${this.sequence}`;
    return {
      delivery_identity: id, source: 'webhook', source_system, event, resource: { kind: event, id }, revision: null, fingerprint: id,
      ticket_key: TICKET_KEY, facts, observed_at: null, received_at: RECEIVED_AT,
    };
  }

  /** The issue_created delivery a ticket starts with; service:yolo may stand on it already. */
  created(yolo: boolean): Arrival {
    const facts: ObservationFacts = { labels: yolo ? [YOLO_LABEL] : [], actor_ids: ['tracker:ada'] };
    return { observation: this.observation('tracker', 'issue_created', facts), decision: 'accepted', note: `issue created${yolo ? ' with service:yolo' : ''}` };
  }

  private labels(added: string[], removed: string[] = []): Arrival {
    const observation = this.observation('tracker', 'issue_updated', { label_change: { added, removed }, actor_ids: ['tracker:ada'] });
    return { observation, decision: 'accepted', note: `labels ${[...added.map((l) => `+${l}`), ...removed.map((l) => `-${l}`)].join(' ')}` };
  }

  private comment(body: string, edited = false): Arrival {
    const comment = { id: `c${this.sequence + 1}`, body, author: 'ada', ...(edited ? { created: '2025-01-01T00:00:00Z', updated: '2025-01-01T00:01:00Z' } : {}) };
    return { observation: this.observation('tracker', 'issue_commented', { comment, actor_ids: ['tracker:ada'] }), decision: 'accepted', note: `${edited ? 'edited ' : ''}comment "${body}"` };
  }

  private pullRequestFacts(ref: string, headRef = 'service/acme-1'): Pick<ObservationFacts, 'repository' | 'pull_request' | 'sender'> {
    const { repository, number } = refParts(ref);
    return { repository, pull_request: { number, head_ref: headRef }, sender: 'bob' };
  }

  private pullRequestComment(ref: string, body: string): Arrival {
    const facts = { ...this.pullRequestFacts(ref), comment: { id: `p${this.sequence + 1}`, body, author: 'bob' } };
    return { observation: this.observation('scmhost', 'issue_comment', facts), decision: 'accepted', note: `comment "${body}" on ${ref}` };
  }

  private review(ref: string, state: 'approved' | 'changes_requested' | 'commented', headRef?: string): Arrival {
    const facts = { ...this.pullRequestFacts(ref, headRef), action: 'submitted', review: { id: `r${this.sequence + 1}`, state, body: state === 'approved' ? 'lgtm' : 'rename it', author: 'bob' } };
    return { observation: this.observation('scmhost', 'pull_request_review', facts), decision: 'accepted', note: `review ${state} on ${ref}` };
  }

  private checkRun(ref: string, conclusion: 'success' | 'failure'): Arrival {
    const facts = { ...this.pullRequestFacts(ref), action: 'completed', check_run: { id: `k${this.sequence + 1}`, name: 'test', status: 'completed', conclusion, head_sha: 'abc' } };
    return { observation: this.observation('scmhost', 'check_run', facts), decision: 'accepted', note: `check ${conclusion} on ${ref}` };
  }

  private pullRequestChange(ref: string, change: 'merged' | 'closed' | 'synchronize', headRef?: string): Arrival {
    const base = this.pullRequestFacts(ref, headRef);
    const pull_request = { ...base.pull_request!, ...(change === 'merged' ? { merged: true } : {}), ...(change === 'synchronize' ? { head_sha: `sha${this.sequence}` } : {}) };
    const facts = { ...base, action: change === 'synchronize' ? 'synchronize' : 'closed', pull_request };
    return { observation: this.observation('scmhost', 'pull_request', facts), decision: 'accepted', note: `${ref} ${change}` };
  }

  private raw(command: Command): Arrival {
    return { observation: this.observation('tracker', 'issue_commented', { comment: { id: 'raw', body: '(raw)' } }), decision: 'accepted', raw: command, note: `raw command ${command.type}` };
  }

  // ------------------------------------------------------------------------------------------------------------
  // Who does what.

  /** A pull request a person or provider acts on: mostly one still open, sometimes any, rarely one of nobody's. */
  private pullRequest(state: TicketState): string {
    const merged = state.runtime?.merged_pull_requests ?? [];
    const approved = state.runtime?.approved_pull_requests ?? [];
    const open = state.pull_requests.filter((ref) => !merged.includes(ref) && !approved.includes(ref));
    if (this.rng.chance(0.03) || state.pull_requests.length === 0) return this.rng.chance(0.5) ? STRAY_PULL_REQUEST : openedPullRequestRef(this.rng.pick(REPOSITORIES));
    return open.length > 0 && this.rng.chance(0.8) ? this.rng.pick(open) : this.rng.pick(state.pull_requests);
  }

  private option(state: TicketState): Arrival {
    const count = rcaOptionCount(state.outputs ?? {});
    return this.comment(`>option ${this.rng.chance(0.85) && count > 0 ? 1 + this.rng.int(count) : 4 + this.rng.int(3)}`);
  }

  private proposal(state: TicketState, what: 'review' | 'merged'): Arrival {
    const gate = state.checkpoint.current_node === 'spec_approval_gate' ? PROPOSALS.spec : PROPOSALS.prd;
    const ref = `${PROPOSALS_REPOSITORY}#${gate.number}`;
    return what === 'review' ? this.review(ref, 'commented', gate.branch) : this.pullRequestChange(ref, 'merged', gate.branch);
  }

  /** Every command type of workflows/person-commands/command-types.ts, as the driver would hand it on. */
  private rawCommand(state: TicketState): Arrival {
    const { repository, number } = refParts(this.pullRequest(state));
    const pull_request = { repository, number };
    const commands: Command[] = [
      { type: 'approve', gate: state.checkpoint.current_node, via: 'label' }, { type: 'retry', mode: 'regenerate' }, { type: 'retry', mode: 'resume' },
      { type: 'retry', mode: 'review_response' }, { type: 'yolo', enabled: true }, { type: 'stop', via: 'comment' },
      { type: 'retriage', trigger: 'ticket_update' }, { type: 'retriage', trigger: 'feedback', text: 'steps to reproduce' }, { type: 'question', text: 'why?' },
      { type: 'feedback', text: 'shorter', via: 'comment' }, { type: 'feedback', text: 'smaller', item_id: 1, via: 'comment' },
      { type: 'draft_remove', item_id: 1 }, { type: 'draft_exclude', item_id: 1 }, { type: 'draft_update', item_id: 1, fields: { summary: 'x' } },
      { type: 'draft_add', fields: { summary: 'y' } }, { type: 'select_option', option: 1 }, { type: 'skip_gate', check: 'lint', match: 'lint' },
      { type: 'unskip_gate', check: 'lint', match: 'lint' }, { type: 'rebase' }, { type: 'review_approved', review_id: 'rr', pull_request },
      { type: 'review_changes_requested', review_id: 'rc', state: 'changes_requested', body: 'no', pull_request },
      { type: 'ci_completed', source: 'check_run', check: 'test', conclusion: 'success', head_sha: 'abc', pull_request },
      { type: 'pr_synchronized', head_sha: 'def', pull_request }, { type: 'pr_merged', pull_request }, { type: 'pr_closed', pull_request },
    ];
    return this.raw(this.rng.pick(commands));
  }

  /** What someone might do whatever the ticket's position: every kind of delivery, meaningful here or not. */
  private anything(state: TicketState): Arrival {
    const rng = this.rng;
    const pr = () => this.pullRequest(state);
    const choices: Array<readonly [number, () => Arrival]> = [
      [2, () => this.labels([rng.pick(APPROVAL_LABELS)])],
      [1, () => this.comment('/service approve')],
      [1.2, () => this.labels([YOLO_LABEL])],
      [0.7, () => this.labels([], [YOLO_LABEL])],
      [1, () => this.labels([RETRY_LABEL])],
      [0.4, () => this.labels([STOP_LABEL])],
      [0.3, () => this.comment('/service stop')],
      [0.5, () => this.labels(['needs-details'])],
      [0.2, () => this.labels([rng.pick(STAGE_LABELS)])],
      [1, () => this.comment(rng.chance(0.5) ? '? why two epics' : '@service ask: what about caching')],
      [0.2, () => this.comment('?')],
      [1, () => this.comment('! shorter, please')],
      [0.5, () => this.comment(`! ${1 + rng.int(4)}: split this`)],
      [0.7, () => this.option(state)],
      [0.1, () => this.comment('>option 1 or >option 2')],
      [0.5, () => this.comment(rng.pick(['/service remove 1', '/service exclude 2', '/service update 1 summary="New title"', '/service add summary="Extra"']))],
      [0.2, () => this.comment('/service approve now')],
      [0.3, () => this.comment(rng.pick(['/service frobnicate', '/service aprove', '/service']))],
      [0.5, () => this.comment('/service rebase')],
      [0.4, () => this.pullRequestComment(pr(), '/service rebase')],
      [0.3, () => this.comment('thanks, looks good')],
      [0.2, () => this.comment('! edited feedback', true)],
      [0.4, () => this.pullRequestComment(pr(), '/service skip-gate lint')],
      [0.3, () => this.pullRequestComment(pr(), '/service unskip-gate lint')],
      [0.1, () => this.comment('/service skip-gate lint')],
      [0.2, () => this.pullRequestComment(pr(), '/service approve')],
      [1, () => this.review(pr(), 'approved')],
      [0.8, () => this.review(pr(), 'changes_requested')],
      [0.3, () => this.review(pr(), 'commented')],
      [0.8, () => this.checkRun(pr(), rng.chance(0.6) ? 'success' : 'failure')],
      [0.4, () => this.pullRequestChange(pr(), 'synchronize')],
      [0.8, () => this.pullRequestChange(pr(), 'merged')],
      [0.25, () => this.pullRequestChange(pr(), 'closed')],
      [this.proposals ? 0.3 : 0, () => this.proposal(state, 'review')],
      [this.proposals ? 0.3 : 0, () => this.proposal(state, 'merged')],
      [1.2, () => this.rawCommand(state)],
      [0.1, () => ({ ...this.comment('! contradicting'), decision: 'conflict' as const, note: 'a delivery contradicting an earlier one (ledger conflict)' })],
    ];
    return rng.weighted(choices)();
  }

  /**
   * What people and providers do that the node here accepts (its `accepts`), so the ticket moves on; now and then a
   * raw command meaning an outcome the gate maps, whether or not a trigger it accepts produces it (the parser turns
   * `!` at a triage gate into a retriage, so `feedback` there is reached only this way).
   */
  private meaningful(state: TicketState, here: DefinitionNode): Arrival {
    const accepts = nodeAccepts(here);
    const rng = this.rng;
    const pr = () => this.pullRequest(state);
    const byTrigger: Record<string, ReadonlyArray<readonly [number, () => Arrival]>> = {
      [TRIGGER.prdApproved]: [[3, () => this.labels([TRIGGER_LABEL[TRIGGER.prdApproved]])]],
      [TRIGGER.specApproved]: [[3, () => this.labels([TRIGGER_LABEL[TRIGGER.specApproved]])]],
      [TRIGGER.planApproved]: [[3, () => this.labels([TRIGGER_LABEL[TRIGGER.planApproved]])]],
      [TRIGGER.taskApproved]: [[3, () => this.labels([TRIGGER_LABEL[TRIGGER.taskApproved]])]],
      [TRIGGER.approve]: [[1.5, () => this.comment('/service approve')]],
      [TRIGGER.retryAtPausedGate]: [[0.6, () => this.labels([RETRY_LABEL])]],
      [TRIGGER.retryAtReviewResponseGate]: [[0.8, () => this.labels([RETRY_LABEL])]],
      [TRIGGER.ticketUpdate]: [[2, () => this.labels(['has-details'])]],
      [TRIGGER.question]: [[0.7, () => this.comment('? what about the edge cases')]],
      [TRIGGER.feedback]: [[1, () => this.comment('! more detail, please')]],
      [TRIGGER.draftItemFeedback]: [[0.5, () => this.comment('! 1: smaller')]],
      [TRIGGER.option]: [[2.5, () => this.option(state)]],
      [TRIGGER.remove]: [[0.2, () => this.comment('/service remove 1')]],
      [TRIGGER.exclude]: [[0.2, () => this.comment('/service exclude 1')]],
      [TRIGGER.update]: [[0.2, () => this.comment('/service update 1 summary="Sharper"')]],
      [TRIGGER.add]: [[0.2, () => this.comment('/service add summary="One more"')]],
      [TRIGGER.proposalReview]: [[0.5, () => this.proposal(state, 'review')]],
      [TRIGGER.proposalMerged]: [[1, () => this.proposal(state, 'merged')]],
      [TRIGGER.pullRequestReview]: [[1.6, () => this.review(pr(), 'approved')], [1.2, () => this.review(pr(), rng.chance(0.7) ? 'changes_requested' : 'commented')]],
      [TRIGGER.ciResult]: [[1, () => this.checkRun(pr(), rng.chance(0.7) ? 'success' : 'failure')]],
      [TRIGGER.push]: [[0.3, () => this.pullRequestChange(pr(), 'synchronize')]],
      [TRIGGER.merged]: [[2, () => this.pullRequestChange(pr(), 'merged')]],
      [TRIGGER.closedUnmerged]: [[0.5, () => this.pullRequestChange(pr(), 'closed')]],
      [TRIGGER.skipGate]: [[0.3, () => this.pullRequestComment(pr(), '/service skip-gate lint')]],
      [TRIGGER.unskipGate]: [[0.2, () => this.pullRequestComment(pr(), '/service unskip-gate lint')]],
    };
    const outcomes = here.kind === 'gate' ? Object.keys(here.on).filter((outcome) => COMMAND_FOR_OUTCOME[outcome] !== undefined) : [];
    const raw = outcomes.length > 0 ? [[0.4, () => this.raw(COMMAND_FOR_OUTCOME[rng.pick(outcomes)]!)] as const] : [];
    const choices = [...accepts.flatMap((trigger) => byTrigger[trigger] ?? []), ...raw, [0.5, () => this.labels([YOLO_LABEL])] as const];
    return rng.weighted(choices)();
  }

  /** Remembered deliveries, redelivered with the same identity (the ledger drops them) or repeated as a new fact. */
  private remembered(arrival: Arrival): Arrival {
    this.recent.push(arrival);
    if (this.recent.length > 8) this.recent.shift();
    return arrival;
  }

  private repeat(): Arrival | undefined {
    if (this.recent.length === 0) return undefined;
    const earlier = this.rng.pick(this.recent);
    if (this.rng.chance(0.5)) return { ...earlier, note: `redelivered: ${earlier.note}` };
    this.sequence += 1;
    const id = `t${this.ticket}-d${this.sequence}`;
    return { ...earlier, observation: { ...earlier.observation, delivery_identity: id, fingerprint: id }, note: `again, as a new fact: ${earlier.note}` };
  }

  /** One delivery while the ticket waits (blocked, paused at a gate) or while a station runs. */
  arrival(state: TicketState): Arrival {
    const rng = this.rng;
    if (rng.chance(0.06)) {
      const again = this.repeat();
      if (again) return again;
    }
    if (state.checkpoint.is_blocked && rng.chance(0.45)) return this.remembered(this.labels([RETRY_LABEL]));
    const here = this.definition.nodes[state.checkpoint.current_node];
    if (here && nodeAccepts(here).length > 0 && rng.chance(this.calm)) return this.remembered(this.meaningful(state, here));
    return this.remembered(this.anything(state));
  }

  /** How many deliveries arrive while a station runs (most runs see none). */
  arrivalsDuringStation(): number {
    return this.rng.chance(0.5 * (1 - this.calm)) ? 1 + this.rng.int(2) : 0;
  }

  /** How many arrive together while the ticket waits: at least one, sometimes a burst in any order. */
  arrivalsWhileWaiting(): number {
    return this.rng.chance(0.2) ? 2 + this.rng.int(2) : 1;
  }

  /** A stop request while a station runs: the kill switch cancels it, unless the station finished first. */
  stopDuringStation(): Arrival | undefined {
    if (!this.rng.chance(0.02)) return undefined;
    return this.remembered(this.rng.chance(0.6) ? this.labels([STOP_LABEL]) : this.comment('/service stop'));
  }

  stationFinishedFirst(): boolean {
    return this.rng.chance(0.2);
  }

  yoloAtStart(): boolean {
    return this.rng.chance(0.25);
  }

  /** The ticket starts on the revision before the current one (pinned then), to be migrated while it waits. */
  startsOnEarlierRevision(): boolean {
    return this.rng.chance(0.3);
  }

  /** An operator migrates the waiting ticket to the current revision now. */
  migratesNow(): boolean {
    return this.rng.chance(0.05);
  }

  /** The run continues as new now (its history grew long): the state is carried as JSON into a new run. */
  continuesAsNew(): boolean {
    return this.rng.chance(0.02);
  }

  // ------------------------------------------------------------------------------------------------------------
  // Stations and writes.

  effectSucceeds(): boolean {
    return !this.rng.chance(0.03);
  }

  /** Replay the decision as after a worker crash (the workflow is rebuilt from history and decides again). */
  crashes(): boolean {
    return this.rng.chance(0.1);
  }

  private likelyOutcome(spec: StationNode): string {
    const outcomes = Object.keys(spec.on);
    const preferred: Record<string, string> = {
      triage_check: 'complete', local_review: 'passed', run_qualitative_review: 'passed', reflect_rca: 'done',
    };
    const first = preferred[spec.station];
    return first && this.rng.chance(0.5) ? first : this.rng.pick(outcomes);
  }

  private stationData(run: StationRun, state: TicketState): Record<string, unknown> | undefined {
    const rng = this.rng;
    switch (run.spec.station) {
      case 'provision_tasks':
      case 'decompose_plan':
      case 'generate_plan': {
        const roll = rng.float();
        return { repositories: roll < 0.1 ? [] : roll < 0.65 ? [rng.pick(REPOSITORIES)] : [...REPOSITORIES] };
      }
      case 'reflect_rca':
        return { option_count: 1 + rng.int(3) };
      case 'decompose_epics':
      case 'generate_tasks': {
        const items = Array.from({ length: 2 + rng.int(2) }, (_, index) => ({
          id: index + 1, summary: `item ${index + 1}`, description: '', repo: null, acceptance_criteria: [], excluded: false, epic_key: null,
        }));
        return { draft: { kind: run.spec.station === 'decompose_epics' ? 'epics' : 'tasks', items } };
      }
      case 'generate_prd':
      case 'generate_spec': {
        if (!this.proposals) return { station: run.spec.station };
        const proposal = run.spec.station === 'generate_prd' ? PROPOSALS.prd : PROPOSALS.spec;
        return { proposal: { repository: PROPOSALS_REPOSITORY, branch: proposal.branch, path: `proposals/${TICKET_KEY}/x.md` } };
      }
      default:
        return state.outputs?.[run.spec.station] === undefined || rng.chance(0.5) ? { station: run.spec.station } : undefined;
    }
  }

  /**
   * The writes a station asks for. Stations are deterministic per node visit here: a station run again at the same
   * visit (after a block and service:retry, or an activity retried after a worker crash) asks for the same writes
   * under the same names, as real stations promise (station-types.ts); which of them it asks for may differ.
   */
  private stationIntents(run: StationRun, outcome: string, state: TicketState): EffectIntent[] {
    const rng = this.rng;
    const { node, visit, spec } = run;
    const intents: EffectIntent[] = [];
    if (rng.chance(0.5)) {
      intents.push({ name: 'report', operation: { kind: 'tracker.comment', issue_key: TICKET_KEY, body: `${spec.station} at ${node}, visit ${visit}` }, required: rng.chance(0.25) });
    }
    const target = this.definition.nodes[spec.on[outcome] ?? ''];
    // Stations of earlier builds set the stage label of the gate they lead to as well (`set_stage_label`), and their
    // recorded results still ask for it on replay (workflows/effects/artifact-posting.ts).
    if (target?.kind === 'gate' && target.pending_label && rng.chance(0.4)) {
      const label = target.pending_label;
      intents.push({ name: 'set_stage_label', operation: { kind: 'tracker.labels', issue_key: TICKET_KEY, add: [label], remove: STAGE_LABELS.filter((other) => other !== label) }, required: true });
    }
    if (spec.station === 'create_pr') {
      const planned = (state.outputs?.next_repository as { repository?: unknown } | undefined)?.repository;
      const repository = typeof planned === 'string' ? planned : REPOSITORIES[0];
      intents.push({ name: 'open_pr', operation: { kind: 'scmhost.open_pr', repository, head: `service/acme-1-${repository.split('/')[1]}`, base: null, title: 'ACME-1', body: '' }, required: true });
    }
    if (this.proposals && (spec.station === 'generate_prd' || spec.station === 'generate_spec')) {
      const branch = spec.station === 'generate_prd' ? PROPOSALS.prd.branch : PROPOSALS.spec.branch;
      intents.push({ name: 'open_proposal', operation: { kind: 'scmhost.open_pr', repository: PROPOSALS_REPOSITORY, head: branch, base: null, title: 'proposal', body: '' } });
    }
    return intents;
  }

  /** How a station run ends: mostly an outcome its node maps; sometimes one it does not, a failure, or an error. */
  stationEnd(run: StationRun, state: TicketState): StationEnd {
    const rng = this.rng;
    // Mishaps (an unmapped outcome, a failure, an invalid result, an error) are rarer in a calm world.
    const roll = rng.float() / (2 * (1 - this.calm));
    if (roll < 0.035) {
      // An outcome the node does not map (another station's, or none at all): the step blocks without the writes.
      const unmapped = ['exploded', 'approved', 'passed', 'done', 'generated'].filter((outcome) => run.spec.on[outcome] === undefined);
      return { type: 'result', outcome: rng.pick(unmapped), intents: this.stationIntents(run, 'exploded', state) };
    }
    if (roll < 0.075) {
      const intents: EffectIntent[] = rng.chance(0.5) ? [{ name: 'failure_report', operation: { kind: 'tracker.comment', issue_key: TICKET_KEY, body: `${run.spec.station} failed at ${run.node}, visit ${run.visit}` } }] : [];
      return { type: 'failure', code: rng.pick(['station_not_available', 'budget_exhausted', 'invalid_model_policy']), message: 'it could not', intents };
    }
    // attempt_ci_fix stops by itself once its fixes did not help (activities/stations/code-change/ci-stations.ts).
    if (run.spec.station === 'attempt_ci_fix' && state.checkpoint.ci_fix_attempts >= 2 && rng.chance(0.6)) {
      return { type: 'failure', code: 'ci_fix_limit', message: `CI fix attempt limit reached (${state.checkpoint.ci_fix_attempts}/2)`, intents: [] };
    }
    if (roll < 0.09) return { type: 'invalid', message: 'the result lacks an outcome' };
    if (roll < 0.11) return { type: 'error', message: 'the model timed out' };
    const outcome = this.likelyOutcome(run.spec);
    const data = this.stationData(run, state);
    return { type: 'result', outcome, ...(data ? { data } : {}), intents: this.stationIntents(run, outcome, state) };
  }
}
