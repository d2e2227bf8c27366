/**
 * What goes wrong in one seed, and when: drawn up front from the seed so a failing seed prints the same plan again.
 * Pure; the run (run-seed.ts) carries it out through the process supervisor and the simulators' fault injectors.
 */
import type { FaultRule } from '../src/sandbox/fault-injector';
import type { WebhookFaultOdds } from '../src/sandbox/fault-injector';
import type { Prng } from './prng';

export type ProcessTarget = 'worker' | 'gateway' | 'temporal';
export type VendorHost = 'tracker' | 'scmhost' | 'git' | 'model';

export type PlannedFault =
  /** SIGKILL the process, keep it down for downMs, start it again (Temporal on its SQLite file). */
  | { kind: 'kill'; target: ProcessTarget; downMs: number }
  /** One rule for a simulator's fault injector, matching only the service's own requests. */
  | { kind: 'vendor'; host: VendorHost; write: string; rule: FaultRule }
  /**
   * A second worker on the same task queue, started at the fault's moment and stopped upMs later with `stop`
   * (SIGTERM drains it, SIGKILL leaves its activities to time out and be retried on the first worker).
   */
  | { kind: 'second-worker'; upMs: number; stop: 'SIGTERM' | 'SIGKILL' };

export interface ScheduledFault {
  atMs: number;
  fault: PlannedFault;
}

export interface FaultPlan {
  faults: ScheduledFault[];
  webhooks: WebhookFaultOdds;
}

/** The writes a vendor fault aims at: the service's logical external writes, and a read for contrast. */
const VENDOR_TARGETS: Array<{ host: VendorHost; write: string; method: string; path: string }> = [
  { host: 'tracker', write: 'tracker comment', method: 'POST', path: '^/rest/api/3/issue/[^/]+/comment$' },
  { host: 'tracker', write: 'tracker label change', method: 'PUT', path: '^/rest/api/3/issue/[^/]+$' },
  { host: 'tracker', write: 'tracker issue creation', method: 'POST', path: '^/rest/api/3/issue$' },
  { host: 'tracker', write: 'tracker issue link', method: 'POST', path: '^/rest/api/3/issueLink$' },
  { host: 'tracker', write: 'tracker transition', method: 'POST', path: '^/rest/api/3/issue/[^/]+/transitions$' },
  { host: 'tracker', write: 'tracker read', method: 'GET', path: '^/rest/api/3/' },
  { host: 'scmhost', write: 'pull request creation', method: 'POST', path: '^/repos/[^/]+/[^/]+/pulls$' },
  { host: 'scmhost', write: 'pull request comment', method: 'POST', path: '^/repos/[^/]+/[^/]+/issues/\\d+/comments$' },
  { host: 'scmhost', write: 'review reply', method: 'POST', path: '^/repos/[^/]+/[^/]+/pulls/\\d+/comments' },
  { host: 'scmhost', write: 'pull request update', method: 'PATCH', path: '^/repos/[^/]+/[^/]+/pulls/\\d+$' },
  { host: 'scmhost', write: 'source host read', method: 'GET', path: '^/repos/' },
  { host: 'git', write: 'git push', method: 'POST', path: '\\.git/git-receive-pack$' },
  { host: 'git', write: 'git fetch', method: 'POST', path: '\\.git/git-upload-pack$' },
  { host: 'model', write: 'model call', method: 'POST', path: '/chat/completions$' },
];

function vendorRule(rng: Prng, target: (typeof VENDOR_TARGETS)[number]): FaultRule {
  const match = { method: target.method, path: target.path };
  // A git push or fetch has no Retry-After semantics worth testing; its faults are the transport's.
  const kinds = target.host === 'git' ? ['status', 'apply-then-timeout', 'drop-connection'] as const
    : ['status', 'rate-limit', 'apply-then-timeout', 'drop-connection'] as const;
  const kind = rng.pick(kinds);
  const times = rng.int(1, 2);
  switch (kind) {
    case 'status': return { kind, status: rng.pick([500, 502, 503]), match, times };
    case 'rate-limit': return { kind, retryAfterSeconds: rng.int(1, 3), match, times, ...(target.host === 'scmhost' ? { variant: rng.pick(['plain', 'secondary'] as const) } : {}) };
    // Held shorter than the clients' own request timeouts would make it a plain drop; longer makes them time out.
    case 'apply-then-timeout': return { kind, holdMs: rng.int(2_000, 8_000), match, times: 1 };
    case 'drop-connection': return { kind, match, times };
  }
}

export interface FaultPlanOptions {
  /** The span over which faults are spread (the first part of the run, where the flows are busiest). */
  spanMs: number;
  /** How many faults: drawn in [min, max]. */
  count: [number, number];
  /** Which kinds are allowed (all by default). */
  processFaults?: boolean;
  vendorFaults?: boolean;
  webhookFaults?: boolean;
  /** The chance of a second worker started and stopped during the seed (0.5 by default; never without process faults). */
  secondWorkerOdds?: number;
}

export function planFaults(rng: Prng, options: FaultPlanOptions): FaultPlan {
  const processFaults = options.processFaults ?? true;
  const vendorFaults = options.vendorFaults ?? true;
  const count = rng.int(options.count[0], options.count[1]);
  const faults: ScheduledFault[] = [];
  for (let i = 0; i < count; i += 1) {
    const atMs = rng.int(1_000, Math.max(1_000, options.spanMs));
    const killing = processFaults && (!vendorFaults || rng.chance(0.35));
    if (killing) {
      const target = rng.pick(['worker', 'worker', 'gateway', 'temporal'] as const);
      faults.push({ atMs, fault: { kind: 'kill', target, downMs: rng.int(0, target === 'temporal' ? 3_000 : 5_000) } });
    } else if (vendorFaults) {
      const target = rng.pick(VENDOR_TARGETS);
      faults.push({ atMs, fault: { kind: 'vendor', host: target.host, write: target.write, rule: vendorRule(rng, target) } });
    }
  }
  // Drawn from a generator of its own, so the faults above stay what each seed drew before this kind existed.
  const extra = rng.fork('second-worker');
  if (processFaults && extra.chance(options.secondWorkerOdds ?? 0.5)) {
    faults.push({ atMs: extra.int(1_000, Math.max(1_000, Math.floor(options.spanMs / 2))), fault: { kind: 'second-worker', upMs: extra.int(5_000, Math.max(5_000, options.spanMs)), stop: extra.pick(['SIGTERM', 'SIGKILL'] as const) } });
  }
  faults.sort((a, b) => a.atMs - b.atMs);
  const webhooks: WebhookFaultOdds = options.webhookFaults ?? true
    ? { drop: rng.pick([0, 0.05, 0.15]), duplicate: rng.pick([0, 0.1, 0.25]), delay: rng.pick([0, 0.1, 0.25]), maxDelayMs: rng.int(500, 4_000) }
    : { drop: 0, duplicate: 0, delay: 0, maxDelayMs: 0 };
  return { faults, webhooks };
}

/** One line of the fault timeline. */
export function describeFault(fault: PlannedFault): string {
  if (fault.kind === 'kill') return `SIGKILL ${fault.target}, restarted after ${fault.downMs} ms`;
  if (fault.kind === 'second-worker') return `second worker started, ${fault.stop} after ${fault.upMs} ms`;
  const rule = fault.rule;
  const detail = rule.kind === 'status' ? `status ${rule.status}`
    : rule.kind === 'rate-limit' ? `${rule.variant === 'secondary' ? '403' : '429'} Retry-After ${rule.retryAfterSeconds} s`
      : rule.kind === 'apply-then-timeout' ? `applied, then no answer for ${rule.holdMs} ms`
        : rule.kind;
  return `${fault.host}: ${fault.write} → ${detail}${(rule.times ?? 1) > 1 ? ` ×${rule.times}` : ''}`;
}
