import { describe, expect, it } from 'vitest';
import { changelogObservation, commentObservation, type TrackerIssueFacts } from '../../../../src/ingress/tracker/tracker-observations';
import type { Observation } from '../../../../workflows/ledger/observation';
import { applyObservation, emptyLedger } from '../../../../workflows/ledger/observation-ledger';

/**
 * Property: whatever order a ticket's facts arrive in (shuffled, delivered twice, re-delivered by the poller), the
 * ledger loses no approval, retry request or command and never acts on one twice. Histories are built through the
 * same builders the gateway and the poller use, from a seeded generator, so a failure names its seed.
 */

const SEEDS = 400;
const COMMAND_LABELS = ['service:retry', 'service:prd-approved', 'service:spec-approved'];
const OTHER_LABELS = ['service:blocked', 'service:yolo', 'needs-info'];
const FIELDS = ['summary', 'description', 'status', 'priority'];

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Fact =
  | { kind: 'changelog'; id: string; at: string; items: Array<{ field: string; fromString: string | null; toString: string | null }> }
  | { kind: 'comment'; id: string; body: string; created: string; updated: string };

interface History {
  facts: Fact[];
  finalLabels: Set<string>;
  touchedLabels: Set<string>;
}

const ISSUE: TrackerIssueFacts = { id: '10042', key: 'PROJ-42', issueType: 'Story', labels: ['service:managed'] };
const time = (minute: number) => new Date(Date.UTC(2026, 10, 23, 8, minute)).toISOString();

function generateHistory(next: () => number): History {
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)]!;
  const labels = new Set(['service:managed']);
  const touched = new Set<string>();
  const facts: Fact[] = [];
  const comments: Array<{ id: string; body: string; created: string; updated: string }> = [];
  let changelogId = 100;
  let commentId = 500;
  const steps = 6 + Math.floor(next() * 18);
  for (let step = 0; step < steps; step += 1) {
    const at = time(step + 1);
    const roll = next();
    if (roll < 0.45) {
      // A labels change, sometimes of two labels at once, sometimes with another field in the same changelog.
      const before = [...labels].sort().join(' ');
      const count = next() < 0.25 ? 2 : 1;
      const chosen = new Set<string>();
      while (chosen.size < count) chosen.add(pick(next() < 0.6 ? COMMAND_LABELS : OTHER_LABELS));
      for (const label of chosen) {
        if (labels.has(label)) labels.delete(label);
        else labels.add(label);
        touched.add(label);
      }
      const items: Array<{ field: string; fromString: string | null; toString: string | null }> = [{ field: 'labels', fromString: before, toString: [...labels].sort().join(' ') }];
      if (next() < 0.2) items.push({ field: pick(FIELDS), fromString: 'old', toString: `new ${step}` });
      facts.push({ kind: 'changelog', id: String(changelogId += 1), at, items });
    } else if (roll < 0.65) {
      facts.push({ kind: 'changelog', id: String(changelogId += 1), at, items: [{ field: pick(FIELDS), fromString: 'old', toString: `new ${step}` }] });
    } else if (roll < 0.85 || comments.length === 0) {
      const comment = { id: String(commentId += 1), body: next() < 0.5 ? '/service approve' : `question ${step}`, created: at, updated: at };
      comments.push(comment);
      facts.push({ kind: 'comment', ...comment });
    } else {
      const comment = pick(comments);
      comment.updated = at;
      comment.body = `${comment.body} (edited)`;
      facts.push({ kind: 'comment', ...comment });
    }
  }
  return { facts, finalLabels: labels, touchedLabels: touched };
}

function observe(fact: Fact, source: 'webhook' | 'poller'): Observation {
  const context = { source, receivedAt: new Date('2026-11-23T09:00:00.000Z') };
  return fact.kind === 'changelog'
    ? changelogObservation(ISSUE, { id: fact.id, created: fact.at, items: fact.items }, context)
    : commentObservation(ISSUE, { id: fact.id, body: fact.body, created: fact.created, updated: fact.updated }, context);
}

/** What the poller sees at one moment: every changelog so far, and each comment as it then reads. */
function pollerSnapshot(facts: Fact[], upTo: number): Fact[] {
  const latest = new Map<string, Fact>();
  const changelogs: Fact[] = [];
  for (const fact of facts.slice(0, upTo)) {
    if (fact.kind === 'changelog') changelogs.push(fact);
    else latest.set(fact.id, fact);
  }
  return [...changelogs, ...latest.values()];
}

function interleave(history: History, next: () => number): Observation[] {
  const deliveries = history.facts.map((fact) => observe(fact, 'webhook'));
  const duplicates = deliveries.filter(() => next() < 0.25).map((o) => structuredClone(o));
  const polls = next() < 0.8 ? pollerSnapshot(history.facts, Math.floor(next() * (history.facts.length + 1))).map((fact) => observe(fact, 'poller')) : [];
  const all = [...deliveries, ...duplicates, ...polls];
  for (let i = all.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all;
}

interface Outcome {
  accepted: string[];
  decided: Map<string, string[]>;
  /** Label operations handed on to the command boundary: `<changelog>:+label` / `<changelog>:-label`. */
  labelOperations: string[];
  commentCreations: string[];
  /** Operations handed on although a later opposite operation on the same label had already been accepted. */
  withdrawnButActed: string[];
}

function run(deliveries: Observation[]): Outcome {
  const ledger = emptyLedger();
  const outcome: Outcome = { accepted: [], decided: new Map(), labelOperations: [], commentCreations: [], withdrawnButActed: [] };
  const newest = new Map<string, number>();
  const opposite = (label: string, sign: string) => newest.get(`${sign === '+' ? '-' : '+'}${label}`) ?? -1;
  for (const observation of deliveries) {
    const verdict = applyObservation(ledger, observation);
    const list = outcome.decided.get(observation.delivery_identity) ?? [];
    list.push(verdict.decision);
    outcome.decided.set(observation.delivery_identity, list);
    if (verdict.decision !== 'accepted') continue;
    outcome.accepted.push(observation.delivery_identity);
    const change = verdict.label_change ?? observation.facts.label_change;
    if (observation.resource.kind === 'issue_changelog' && change) {
      const revision = Number(observation.revision);
      const handed = [...change.added.map((l) => ['+', l] as const), ...change.removed.map((l) => ['-', l] as const)];
      for (const [sign, label] of handed) {
        outcome.labelOperations.push(`${revision}:${sign}${label}`);
        if (opposite(label, sign) > revision) outcome.withdrawnButActed.push(`${revision}:${sign}${label}`);
      }
      const delivered = observation.facts.label_change!;
      for (const [sign, labels] of [['+', delivered.added], ['-', delivered.removed]] as const) {
        for (const label of labels) newest.set(`${sign}${label}`, Math.max(revision, newest.get(`${sign}${label}`) ?? -1));
      }
    }
    const comment = observation.facts.comment;
    if (comment && comment.created === comment.updated) outcome.commentCreations.push(comment.id);
  }
  return outcome;
}

/** The label state the accepted operations leave: per label, the newest operation handed on. */
function labelState(operations: string[]): Map<string, boolean> {
  const newest = new Map<string, { revision: number; present: boolean }>();
  for (const operation of operations) {
    const [revision, signed] = [Number(operation.split(':')[0]), operation.slice(operation.indexOf(':') + 1)];
    const label = signed.slice(1);
    const known = newest.get(label);
    if (!known || known.revision < revision) newest.set(label, { revision, present: signed.startsWith('+') });
  }
  return new Map([...newest].map(([label, { present }]) => [label, present]));
}

/** Commands a user would notice: comment creations that say /service, and command labels still on the ticket. */
function commands(outcome: Outcome, history: History): string[] {
  const creations = history.facts.filter((f): f is Extract<Fact, { kind: 'comment' }> => f.kind === 'comment' && f.created === f.updated && f.body.startsWith('/service'));
  const commentCommands = creations.filter((c) => outcome.commentCreations.includes(c.id)).map((c) => `comment ${c.id}`);
  const inForce = [...labelState(outcome.labelOperations)].filter(([label, present]) => present && COMMAND_LABELS.includes(label));
  return [...commentCommands, ...inForce.map(([label]) => `label ${label}`)].sort();
}

/** The addition that leaves each label on the ticket at the end of the history (the newest operation on it). */
function finalAdditions(history: History): string[] {
  const newest = new Map<string, string>();
  for (const fact of history.facts) {
    if (fact.kind !== 'changelog') continue;
    const change = changelogObservation(ISSUE, { id: fact.id, items: fact.items }, { source: 'webhook', receivedAt: new Date() }).facts.label_change;
    for (const label of change?.added ?? []) newest.set(label, `${fact.id}:+${label}`);
    for (const label of change?.removed ?? []) newest.set(label, `${fact.id}:-${label}`);
  }
  return [...newest.values()].filter((operation) => operation.includes(':+')).sort();
}

describe('observation ledger under real delivery patterns (property, seeded)', () => {
  it(`decides the same label states and commands as the in-order history, for ${SEEDS} random interleavings`, () => {
    for (let seed = 1; seed <= SEEDS; seed += 1) {
      const next = random(seed);
      const history = generateHistory(next);
      const inOrder = run(history.facts.map((fact) => observe(fact, 'webhook')));
      const shuffled = run(interleave(history, next));
      const where = `seed ${seed}`;

      // In order, nothing is stale and every fact is accepted once.
      expect([...inOrder.decided.values()].flat().every((d) => d === 'accepted'), where).toBe(true);
      // Nothing is accepted twice, nothing conflicts, and every delivery was decided.
      expect(new Set(shuffled.accepted).size, where).toBe(shuffled.accepted.length);
      expect([...shuffled.decided.values()].flat(), where).not.toContain('conflict');
      expect(new Set(shuffled.labelOperations).size, where).toBe(shuffled.labelOperations.length);
      // Every comment creation is accepted exactly once, however late it comes.
      expect([...shuffled.commentCreations].sort(), where).toEqual([...inOrder.commentCreations].sort());
      // The label state the accepted changes leave is the ticket's real final state, as in order.
      const state = labelState(shuffled.labelOperations);
      expect(state, where).toEqual(labelState(inOrder.labelOperations));
      for (const label of history.touchedLabels) expect(state.get(label), `${where}: ${label}`).toBe(history.finalLabels.has(label));
      // Each addition still in force at the end (an approval, a retry request) is handed on exactly once.
      for (const addition of finalAdditions(history)) expect(shuffled.labelOperations.filter((o) => o === addition), `${where}: ${addition}`).toHaveLength(1);
      // Only operations the in-order history also handed on; one a later accepted change withdrew, never.
      expect(shuffled.withdrawnButActed, where).toEqual([]);
      for (const operation of shuffled.labelOperations) expect(inOrder.labelOperations, where).toContain(operation);
      expect(commands(shuffled, history), where).toEqual(commands(inOrder, history));
    }
    // Hundreds of seeds: seconds on a loaded machine, more than vitest's default per-test timeout allows.
  }, 120_000);

  it('keeps the ledger small: identities, hashes and per-field revisions only', () => {
    const next = random(7);
    const ledger = emptyLedger();
    for (let round = 0; round < 40; round += 1) {
      for (const observation of interleave(generateHistory(next), next)) applyObservation(ledger, observation);
    }
    const bytes = JSON.stringify(ledger).length;
    expect(bytes).toBeLessThan(200_000);
    expect(JSON.stringify(ledger)).not.toContain('/service approve');
  });
});
