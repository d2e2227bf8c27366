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

/** The service's own identities on every system, from the configuration: one guard for the gateway and the poller. */
export function loopGuardOf(config: Pick<ServiceConfig, 'tracker' | 'scmhost' | 'botCommentPrefix'>): LoopGuardOptions {
  return {
    botAccounts: [config.tracker.userEmail, config.scmhost.botLogin].filter((account): account is string => Boolean(account)),
    botCommentPrefix: config.botCommentPrefix,
  };
}
