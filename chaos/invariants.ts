/**
 * The campaign's verdict on one seed, from what the simulators recorded (and the workflows' end states from
 * Temporal), never from the service's own logs. Pure: run-seed.ts gathers the records, this decides.
 */

export interface WorldRecords {
  issues: Array<{
    key: string; summary: string; issueType: string; parentKey?: string; labels: string[]; createdByService: boolean;
    links: Array<{ type: string; outwardKey: string; inwardKey: string }>;
    comments: Array<{ id: string; byService: boolean; idempotencyKey?: string; text: string }>;
  }>;
  pulls: Array<{ repo: string; number: number; headRef: string; state: 'open' | 'closed'; merged: boolean }>;
  pullComments: Array<{ repo: string; number: number; byService: boolean; idempotencyKey?: string }>;
  reviewComments: Array<{ repo: string; id: number; inReplyToId?: number; byService: boolean }>;
  /** Subjects of the service's commits on each ticket's branch (`[KEY] ...`), oldest first. */
  branchCommits: Record<string, string[]>;
  /** How many times the person asked for `/service rebase` on each ticket's pull request (each may add a merge commit). */
  rebaseRequests: Record<string, number>;
}

export interface TicketOutcome {
  key: string;
  expected: string;
  /** The workflow's status in Temporal (completed, running, failed, ...). */
  status: string;
  position?: string;
  blocking?: string;
  /** Set when the person's script did not finish (the ticket stopped moving). */
  stuck?: string;
  /** The person's draft edits at the plan and task gates: each summary must be an issue the service created. */
  draftEdits?: Array<{ gate: string; summary: string }>;
}

export interface Violation {
  invariant: string;
  ticket?: string;
  write?: string;
  detail: string;
}

export interface Verdict {
  writesChecked: number;
  violations: Violation[];
}

/** `SBX-12` for an issue or branch name that belongs to ticket SBX-12 (or its fix tasks, by parent). */
function ticketOfBranch(ref: string): string | undefined {
  const match = /^service\/([a-z]+-\d+)$/i.exec(ref);
  return match ? match[1]!.toUpperCase() : undefined;
}

function countBy<T>(items: T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}

/** Stage labels (`service:<stage>`), not the identities a person or the service keeps on a ticket. */
const KEPT_LABELS = new Set(['service:managed', 'service:yolo', 'service:retry']);
function isStageLabel(label: string): boolean {
  return /^service:[a-z-]+$/.test(label) && !KEPT_LABELS.has(label) && !/^service:(fix|parent|epic|task)/.test(label);
}

export function checkInvariants(records: WorldRecords, outcomes: TicketOutcome[]): Verdict {
  const violations: Violation[] = [];
  let writesChecked = 0;

  for (const issue of records.issues) {
    const serviceComments = issue.comments.filter((c) => c.byService);
    writesChecked += serviceComments.length;
    for (const [key, comments] of countBy(serviceComments, (c) => c.idempotencyKey)) {
      if (comments.length > 1) {
        violations.push({ invariant: 'each comment once', ticket: issue.key, write: `tracker comment ${key}`, detail: `${comments.length} comments carry idempotency key ${key} (ids ${comments.map((c) => c.id).join(', ')}): "${comments[0]!.text.slice(0, 120)}"` });
      }
    }
    writesChecked += issue.links.length;
    for (const [link, same] of countBy(issue.links, (l) => `${l.type} ${l.outwardKey} -> ${l.inwardKey}`)) {
      if (same.length > 1) violations.push({ invariant: 'each issue link once', ticket: issue.key, write: `link ${link}`, detail: `${same.length} identical links` });
    }
  }

  const created = records.issues.filter((i) => i.createdByService);
  writesChecked += created.length;
  for (const [what, same] of countBy(created, (i) => `${i.issueType} "${i.summary}" under ${i.parentKey ?? '(no parent)'}`)) {
    if (same.length > 1) violations.push({ invariant: 'each created issue once', ticket: same[0]!.parentKey, write: `create ${what}`, detail: `created ${same.length} times: ${same.map((i) => i.key).join(', ')}` });
  }

  writesChecked += records.pulls.length;
  for (const [branch, same] of countBy(records.pulls, (p) => `${p.repo}:${p.headRef}`)) {
    if (same.length > 1) violations.push({ invariant: 'one pull request per branch', ticket: ticketOfBranch(same[0]!.headRef), write: `pull request from ${branch}`, detail: `${same.length} pull requests: ${same.map((p) => `#${p.number} (${p.merged ? 'merged' : p.state})`).join(', ')}` });
  }

  const servicePullComments = records.pullComments.filter((c) => c.byService);
  writesChecked += servicePullComments.length;
  for (const [key, same] of countBy(servicePullComments, (c) => c.idempotencyKey && `${c.repo}#${c.number} ${c.idempotencyKey}`)) {
    if (same.length > 1) violations.push({ invariant: 'each pull request comment once', write: `comment ${key}`, detail: `${same.length} comments with one idempotency marker` });
  }

  const replies = records.reviewComments.filter((c) => c.byService && c.inReplyToId !== undefined);
  writesChecked += replies.length;
  for (const [parent, same] of countBy(replies, (c) => `${c.repo} ${c.inReplyToId}`)) {
    if (same.length > 1) violations.push({ invariant: 'each review reply once', write: `reply to review comment ${parent}`, detail: `${same.length} replies (ids ${same.map((c) => c.id).join(', ')})` });
  }

  for (const [ticket, subjects] of Object.entries(records.branchCommits)) {
    writesChecked += subjects.length;
    for (const [subject, same] of countBy(subjects, (s) => s)) {
      // A rebase done on request brings main in with the same subject each time: once per request, not once at all.
      const allowed = /merge main into /.test(subject) ? Math.max(1, records.rebaseRequests[ticket] ?? 0) : 1;
      if (same.length > allowed) violations.push({ invariant: 'each step pushes its commit once', ticket, write: `commit "${subject}"`, detail: `${same.length} commits with this subject on service/${ticket.toLowerCase()}${allowed > 1 ? ` (${allowed} rebases were asked for)` : ''}` });
    }
  }

  for (const outcome of outcomes) {
    if (outcome.stuck) {
      violations.push({ invariant: 'no workflow stuck', ticket: outcome.key, detail: outcome.stuck });
    } else if (outcome.status !== outcome.expected) {
      violations.push({ invariant: 'each ticket ends where its script says', ticket: outcome.key, detail: `expected ${outcome.expected}, workflow is ${outcome.status}${outcome.position ? ` at ${outcome.position}` : ''}${outcome.blocking ? ` (${outcome.blocking})` : ''}` });
    }
    if (outcome.status === 'completed') violations.push(...checkDraftEdits(records, outcome));
    const issue = records.issues.find((i) => i.key === outcome.key);
    if (issue && outcome.status === 'completed') {
      const stages = issue.labels.filter(isStageLabel);
      if (stages.length > 1) violations.push({ invariant: 'label changes applied once and in order', ticket: outcome.key, write: 'stage labels', detail: `ended with ${stages.length} stage labels: ${stages.join(', ')}` });
    }
  }
  return { writesChecked, violations };
}

/**
 * A draft edit is reflected in the artefact: the epic or task it renamed was created under the ticket (an epic's
 * parent is the ticket, a task's parent one of its epics) with the summary the person wrote, not the model's.
 */
function checkDraftEdits(records: WorldRecords, outcome: TicketOutcome): Violation[] {
  if (!outcome.draftEdits?.length) return [];
  const epics = records.issues.filter((i) => i.createdByService && i.parentKey === outcome.key);
  const epicKeys = new Set(epics.map((i) => i.key));
  const tree = [...epics, ...records.issues.filter((i) => i.createdByService && i.parentKey !== undefined && epicKeys.has(i.parentKey))];
  return outcome.draftEdits.filter((edit) => !tree.some((i) => i.summary === edit.summary)).map((edit) => ({
    invariant: 'each draft edit reflected in the artefact', ticket: outcome.key, write: `create the item renamed at ${edit.gate}`,
    detail: `no issue under ${outcome.key} has the summary "${edit.summary}"; created: ${tree.map((i) => `${i.key} "${i.summary.slice(0, 60)}"`).join(', ') || 'none'}`,
  }));
}
