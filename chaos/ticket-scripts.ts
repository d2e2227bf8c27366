/**
 * The tickets of one seed and what the person does on each: drawn from the seed, carried out with the sandbox's
 * person (src/sandbox/sandbox-person.ts) whenever the ticket rests at a gate. Pure: `nextAction` says what to do
 * next from where the ticket rests and what was already done.
 */
import type { Prng } from './prng';

export type TicketKind = 'feature' | 'feature-yolo' | 'bug' | 'takeover';

export type PersonAction =
  | { kind: 'comment'; text: string }
  | { kind: 'label'; label: string }
  | { kind: 'check'; conclusion: 'success' | 'failure'; summary: string }
  | { kind: 'review'; body: string; line?: { path: string; line: number; body: string } }
  | { kind: 'approve-pr' }
  | { kind: 'merge' };

/** Where the ticket's change goes: the GitHub simulator (tracker project SBX) or the GitLab one (project GLB). */
export type SourceHost = 'github' | 'gitlab';

export interface TicketScript {
  kind: TicketKind;
  host: SourceHost;
  type: 'Feature' | 'Bug' | 'Task';
  summary: string;
  description?: string;
  labels: string[];
  /** What the person does at each gate, in order; a gate not named here gets `/service approve`. */
  gates: Record<string, PersonAction[]>;
  /** What the person does once the pull request is up (the review and CI gates), in order. */
  review: PersonAction[];
  /** Where the ticket must end. */
  expect: { status: 'completed' };
  /**
   * The draft edits among the gate actions (`/service update 1 summary="..."` at plan_approval_gate or
   * task_approval_gate): each must be reflected in the artefact, an issue of the ticket's created with that summary.
   */
  draftEdits: DraftEdit[];
}

export interface DraftEdit {
  gate: 'plan_approval_gate' | 'task_approval_gate';
  summary: string;
}

/** The positions of the pull-request phase: the person reports CI, reviews, approves and merges here. */
export const REVIEW_POSITIONS = ['human_review_gate', 'wait_for_ci_gate'];

const APPROVE: PersonAction = { kind: 'comment', text: '/service approve' };

/** The file the sandbox agent changes for a ticket (`SANDBOX_CHANGES/<key>.md`); `<key>` is filled in when acting. */
export const SANDBOX_CHANGE_OF_TICKET = 'SANDBOX_CHANGES/<key>.md';

function reviewPhase(rng: Prng): PersonAction[] {
  const steps: PersonAction[] = [];
  if (rng.chance(0.4)) steps.push({ kind: 'check', conclusion: 'failure', summary: `${rng.int(1, 5)} tests failed` });
  steps.push({ kind: 'check', conclusion: 'success', summary: 'all green' });
  if (rng.chance(0.3)) {
    steps.push({ kind: 'review', body: 'Please name the rows.', line: { path: SANDBOX_CHANGE_OF_TICKET, line: 1, body: 'Name the rows exported.' } });
    steps.push({ kind: 'check', conclusion: 'success', summary: 'all green after the review' });
  }
  // Approving ends the ticket (the merge is then the person's); merging without approving ends it too, and a merge
  // the source host refuses because another ticket's merge conflicts is answered with `/service rebase`.
  if (rng.chance(0.5)) steps.push({ kind: 'approve-pr' });
  steps.push({ kind: 'merge' });
  return steps;
}

/**
 * A ticket of the seed, on GitHub or GitLab: half of them go to GitLab. The host is drawn from a generator of its own,
 * so every other draw of a seed stays what it was before GitLab was in the mix.
 */
export function drawTicket(rng: Prng, index: number): TicketScript {
  return { ...drawFlow(rng, index), host: rng.fork('host').chance(0.5) ? 'gitlab' : 'github' };
}

function drawFlow(rng: Prng, index: number): Omit<TicketScript, 'host'> {
  const kind = rng.pick(['feature', 'feature-yolo', 'bug', 'takeover'] as const);
  const review = reviewPhase(rng);
  switch (kind) {
    case 'feature': {
      const prd: PersonAction[] = [];
      if (rng.chance(0.5)) prd.push({ kind: 'comment', text: '? is Excel in scope' });
      if (rng.chance(0.5)) prd.push({ kind: 'comment', text: '! mention archived reports' });
      prd.push({ kind: 'label', label: 'service:prd-approved' });
      // Drawn from a generator of their own, so the draws above stay what each seed drew before draft edits existed.
      const editing = rng.fork('draft-edits');
      const draftEdits: DraftEdit[] = [];
      const draftGate = (gate: DraftEdit['gate'], what: string): PersonAction[] => {
        if (!editing.chance(0.5)) return [APPROVE];
        const summary = `Chaos feature ${index}: ${what} renamed by the person`;
        draftEdits.push({ gate, summary });
        return [{ kind: 'comment', text: `/service update 1 summary="${summary}"` }, APPROVE];
      };
      return {
        kind, type: 'Feature', summary: `Chaos feature ${index}: export reports as CSV`, labels: ['service:managed'],
        gates: { prd_approval_gate: prd, spec_approval_gate: [{ kind: 'label', label: 'service:spec-approved' }], plan_approval_gate: draftGate('plan_approval_gate', 'first epic'), task_approval_gate: draftGate('task_approval_gate', 'first task') },
        review, expect: { status: 'completed' }, draftEdits,
      };
    }
    case 'feature-yolo':
      return { kind, type: 'Feature', summary: `Chaos feature ${index}: a yolo change`, labels: ['service:managed', 'service:yolo'], gates: {}, review, expect: { status: 'completed' }, draftEdits: [] };
    case 'bug': {
      // Without steps the triage asks for them; the person answers with `!`.
      const withSteps = rng.chance(0.5);
      return {
        kind, type: 'Bug', summary: `Chaos bug ${index}: crash on save`, labels: ['service:managed'],
        description: withSteps
          ? 'Saving crashes.\n\nSteps to reproduce:\n1. create a file\n2. press Ctrl-S\n\nExpected: saved. Actual: TypeError.'
          : 'Saving a file with an emoji in its name crashes the editor. Expected: saved. Actual: TypeError.',
        gates: { triage_gate: [{ kind: 'comment', text: '! Steps: 1. create a file named café.txt 2. press Ctrl-S' }], rca_option_gate: [{ kind: 'comment', text: `>option ${rng.int(1, 2)}` }] },
        review, expect: { status: 'completed' }, draftEdits: [],
      };
    }
    case 'takeover':
      return {
        kind, type: 'Task', summary: `Chaos task ${index}: add a health endpoint`, labels: ['service:managed'],
        description: 'Intent: operators need a liveness probe. Scope: add GET /health, nothing else. Expected outcome: it answers 200.',
        gates: {}, review, expect: { status: 'completed' }, draftEdits: [],
      };
  }
}

/** What the person has done on a ticket: actions taken at each position, and how far the review phase is. */
export interface PersonProgress {
  atGate: Record<string, number>;
  reviewStep: number;
}

export function newProgress(): PersonProgress {
  return { atGate: {}, reviewStep: 0 };
}

/**
 * The next thing to do on a ticket resting at `position`, or undefined when the person has nothing to do there
 * (the service owes the next move). Does not change `progress`; `takeAction` records it.
 */
export function nextAction(script: TicketScript, progress: PersonProgress, position: string): PersonAction | undefined {
  if (REVIEW_POSITIONS.includes(position)) return script.review[progress.reviewStep];
  if (!position.endsWith('_gate')) return undefined;
  const actions = script.gates[position] ?? [APPROVE];
  return actions[progress.atGate[position] ?? 0];
}

export function takeAction(script: TicketScript, progress: PersonProgress, position: string): PersonProgress {
  if (REVIEW_POSITIONS.includes(position)) return { ...progress, reviewStep: progress.reviewStep + 1 };
  return { ...progress, atGate: { ...progress.atGate, [position]: (progress.atGate[position] ?? 0) + 1 } };
}

export function describeAction(action: PersonAction): string {
  switch (action.kind) {
    case 'comment': return `comment "${action.text}"`;
    case 'label': return `label ${action.label}`;
    case 'check': return `CI ${action.conclusion}`;
    case 'review': return 'review: changes requested';
    case 'approve-pr': return 'approve the pull request';
    case 'merge': return 'merge';
  }
}
