import { idempotencyKeyOf } from '../providers/scmhost/idempotency-marker';
import { actorId } from '../../workflows/person-commands/actor-identity';

import type { ServiceConfig } from '../config/service-config';
import { MANAGED_LABEL, SERVICE_LABEL_PREFIX } from '../../workflows/vocabulary/labels';

export interface LoopGuardOptions {
  /**
   * The service's own identities, each with its system like every actor id (workflows/person-commands/actor-identity.ts):
   * `tracker-email:<TRACKER_USER_EMAIL>`, `tracker:<its account id>`, `github:`/`gitlab:<SCMHOST_BOT_LOGIN>`.
   */
  botAccounts?: string[];
  botCommentPrefix?: string;
}

/** Both sides carry their system, so a person whose login on one system equals the bot's id on another is a person. */
function isServiceAccount(ids: Array<string | undefined>, options: LoopGuardOptions): boolean {
  const accounts = new Set((options.botAccounts ?? []).map((account) => account.toLowerCase()));
  return ids.some((id) => id !== undefined && id !== '' && accounts.has(id.toLowerCase()));
}

/**
 * Comments the service wrote itself must never come back as input, or it would answer its own answers. They are
 * recognised by the dev/test comment prefix, by the author's identities (tagged ids, never a display name: anyone
 * can take the bot's name as theirs), or by the hidden idempotency marker every service comment carries.
 */
export function ownCommentReason(comment: { body: string }, options: LoopGuardOptions, authorIds: string[] = []): string | undefined {
  if (options.botCommentPrefix && comment.body.trimStart().startsWith(options.botCommentPrefix)) return 'comment written by the service (bot comment prefix)';
  if (isServiceAccount(authorIds, options)) return 'comment written by the service account';
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
  if (!isServiceAccount(facts.actor_ids ?? [], options)) return undefined;
  if ((facts.changed_fields ?? []).some((field) => field !== 'labels')) return undefined;
  const labels = [...change.added, ...change.removed];
  if (labels.length === 0 || labels.some((label) => !label.toLowerCase().startsWith(SERVICE_LABEL_PREFIX) || label.toLowerCase() === MANAGED_LABEL)) return undefined;
  return 'label change written by the service account';
}

/**
 * The service's own identities on every system, from the configuration: one guard for the gateway and the poller.
 * SCMHOST_BOT_LOGIN counts on GitLab too: a deployment usually gives its bot one name, and for the loop guard a false
 * match only drops a delivery, where a missed one makes the service answer itself.
 */
export function loopGuardOf(config: Pick<ServiceConfig, 'tracker' | 'scmhost' | 'botCommentPrefix'>): LoopGuardOptions {
  const { userEmail } = config.tracker;
  const { botLogin } = config.scmhost;
  return {
    botAccounts: [
      ...(userEmail ? [actorId('tracker-email', userEmail)] : []),
      ...(botLogin ? [actorId('github', botLogin), actorId('gitlab', botLogin)] : []),
    ],
    botCommentPrefix: config.botCommentPrefix,
  };
}

/**
 * Learns the tracker account id of the service account (`GET /myself`) and adds it to the guard's accounts. Jira
 * Cloud leaves a user's e-mail out of webhooks and changelogs when their profile keeps it private, but never the
 * account id, so without this the service's own comments and label changes would come back as input. Until the
 * lookup succeeds (the tracker may be down at startup) the e-mail alone is used, and the lookup is tried again.
 */
export function learnTrackerAccountId(
  guard: LoopGuardOptions,
  lookup: () => Promise<{ accountId?: string }>,
  report: { learned(accountId: string): void; failed(error: unknown): void },
  retryMs = 60_000,
): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async () => {
    try {
      const { accountId } = await lookup();
      if (!accountId) throw new Error('the tracker named no account id for the service account');
      const id = actorId('tracker', accountId);
      if (!isServiceAccount([id], guard)) guard.botAccounts = [...(guard.botAccounts ?? []), id];
      report.learned(accountId);
    } catch (error) {
      report.failed(error);
      if (!stopped) timer = setTimeout(() => void attempt(), retryMs).unref();
    }
  };
  void attempt();
  return { stop: () => { stopped = true; clearTimeout(timer); } };
}

/** What a process logs of the lookup: the id once learned, and each failure as a warning (the e-mail still works). */
export function trackerAccountReport(logger: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void }): { learned(accountId: string): void; failed(error: unknown): void } {
  return {
    learned: (accountId) => logger.info('tracker service account recognised by its account id too', { account_id: accountId }),
    failed: (error) => logger.warn('could not look up the tracker service account id; its own changes are recognised by e-mail only until it can', { error: error instanceof Error ? error.message : String(error) }),
  };
}
