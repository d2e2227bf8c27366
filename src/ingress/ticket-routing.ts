import { TICKET_KEY } from './tracker/tracker-webhook-schema';

/** The branch prefix of the service's pull requests: `service/<ticket-key-lowercase>`. */
export const SERVICE_BRANCH_PREFIX = 'service/';

/** `[PROJ-12] Export invoices` -> PROJ-12. The first bracketed ticket key wins. */
export function ticketKeyFromTitle(title: string | undefined | null): string | undefined {
  for (const match of (title ?? '').matchAll(/\[([A-Za-z][A-Za-z0-9_]*-[1-9][0-9]*)\]/g)) {
    const key = match[1]!.toUpperCase();
    if (TICKET_KEY.test(key)) return key;
  }
  return undefined;
}

/**
 * `service/proj-12` (also `refs/heads/service/proj-12`, and proposal branches `service/prd/proj-12`) -> PROJ-12.
 */
export function ticketKeyFromBranch(ref: string | undefined | null): string | undefined {
  const branch = (ref ?? '').replace(/^refs\/heads\//, '');
  if (!branch.startsWith(SERVICE_BRANCH_PREFIX)) return undefined;
  const last = branch.slice(SERVICE_BRANCH_PREFIX.length).split('/').pop() ?? '';
  const key = last.toUpperCase();
  return TICKET_KEY.test(key) ? key : undefined;
}

