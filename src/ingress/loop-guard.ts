import { idempotencyKeyOf } from '../providers/scmhost/idempotency-marker';

import type { ServiceConfig } from '../config/service-config';

export interface LoopGuardOptions {
  /** The service account: the tracker e-mail or the source-host login. */
  botAccounts?: string[];
  botCommentPrefix?: string;
}

/**
 * Comments the service wrote itself must never come back as input, or it would answer its own answers. They are
 * recognised by author, by the dev/test comment prefix, or by the hidden idempotency marker every service comment on
 * a source host carries.
 */
export function ownCommentReason(comment: { body: string; author?: string }, options: LoopGuardOptions): string | undefined {
  if (options.botCommentPrefix && comment.body.trimStart().startsWith(options.botCommentPrefix)) return 'comment written by the service (bot comment prefix)';
  const author = comment.author?.toLowerCase();
  if (author && (options.botAccounts ?? []).some((account) => account.toLowerCase() === author)) return 'comment written by the service account';
  if (idempotencyKeyOf(comment.body) !== undefined) return 'comment written by the service (idempotency marker)';
  return undefined;
}

/**
 * A tracker change the service made to its own `service:` labels (a stage label, `service:blocked`, removing a
 * request label it carried out) comes back as an update. It is not a command (no person asked anything), and the
 * workflow already knows what it wrote: signalling it would cost the ticket a workflow task, a replay when the ticket
 * was evicted, for an "ignored" line on its timeline. Only a change of nothing but `service:` labels, made by the
 * service account, is recognised; `service:managed` is kept, as its addition starts a ticket.
 */
export function ownLabelChangeReason(facts: { label_change?: { added: string[]; removed: string[] }; changed_fields?: string[]; actor_ids?: string[]; comment?: unknown }, options: LoopGuardOptions): string | undefined {
  const change = facts.label_change;
  if (!change || facts.comment !== undefined) return undefined;
  const accounts = (options.botAccounts ?? []).map((account) => account.toLowerCase());
  if (!(facts.actor_ids ?? []).some((id) => accounts.includes(id.toLowerCase()))) return undefined;
  if ((facts.changed_fields ?? []).some((field) => field !== 'labels')) return undefined;
  const labels = [...change.added, ...change.removed];
  if (labels.length === 0 || labels.some((label) => !label.toLowerCase().startsWith('service:') || label.toLowerCase() === 'service:managed')) return undefined;
  return 'label change written by the service account';
}

/** The service's own identities on every system, from the configuration: one guard for the gateway and the poller. */
export function loopGuardOf(config: Pick<ServiceConfig, 'tracker' | 'scmhost' | 'botCommentPrefix'>): LoopGuardOptions {
  return {
    botAccounts: [config.tracker.userEmail, config.scmhost.botLogin].filter((account): account is string => Boolean(account)),
    botCommentPrefix: config.botCommentPrefix,
  };
}
