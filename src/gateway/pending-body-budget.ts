import type { PendingBodyLimits } from '../config/gateway-limits';

/**
 * What the gateway lets unauthenticated webhook bodies hold (issue 41 point 4). An HMAC covers the whole body, so a
 * signed delivery is authenticated only at its last byte, and until then its chunks are kept. Anyone can send a
 * well-formed signature header; without these caps each such request held up to its route's limit, and a few hundred
 * of them held gigabytes. The budget caps how many bodies are pending at once (per route and in total) and how many
 * bytes they hold together; a body that would go past a cap is refused at once with 503, never queued.
 */

/** Why a body was refused before it was authenticated; the label of service_webhook_bodies_refused_total. */
export type PendingBodyRefusalReason = 'route_pending_bodies' | 'pending_bodies' | 'pending_bytes';

export interface PendingBodyState {
  bodies: number;
  routeBodies: number;
  bytes: number;
}

/**
 * Whether one more body may start on a route: the counts first, then whether its declared length (when it has one)
 * still fits in the bytes left. Pure, so the order of the checks is tested apart from any socket.
 */
export function admissionRefusal(state: PendingBodyState, limits: PendingBodyLimits, declaredBytes?: number): PendingBodyRefusalReason | undefined {
  if (state.routeBodies >= limits.maxBodiesPerRoute) return 'route_pending_bodies';
  if (state.bodies >= limits.maxBodies) return 'pending_bodies';
  if (declaredBytes !== undefined && state.bytes + declaredBytes > limits.maxBytes) return 'pending_bytes';
  return undefined;
}

/** One admitted body: it holds bytes as its chunks arrive and gives everything back once, when released. */
export interface PendingBody {
  /** Takes `bytes` more from the budget; false (nothing taken) when that would go past it. */
  hold(bytes: number): boolean;
  release(): void;
}

export type Admission = { ok: true; body: PendingBody } | { ok: false; reason: PendingBodyRefusalReason };

/**
 * The shared counts of one gateway. Bytes are taken chunk by chunk as they arrive, not the declared length at
 * admission: a sender that declares 8 MiB and sends nothing holds a slot but no memory, so slow senders cannot
 * exhaust the bytes with a few requests (the count caps bound them), and the bytes bound what is really held.
 */
export class PendingBodyBudget {
  private bodies = 0;
  private bytes = 0;
  private peak = 0;
  private readonly routes = new Map<string, number>();

  constructor(readonly limits: PendingBodyLimits, private readonly onBytes?: (bytes: number) => void) {}

  /** Bytes held right now by bodies not yet authenticated. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** The most bytes held at once since the gateway started, for a test or a benchmark to compare with the limit. */
  get peakBytes(): number {
    return this.peak;
  }

  get pendingBodies(): number {
    return this.bodies;
  }

  /** Bodies pending on one route right now. */
  pendingOn(route: string): number {
    return this.routes.get(route) ?? 0;
  }

  admit(route: string, declaredBytes?: number): Admission {
    const routeBodies = this.routes.get(route) ?? 0;
    const reason = admissionRefusal({ bodies: this.bodies, routeBodies, bytes: this.bytes }, this.limits, declaredBytes);
    if (reason) return { ok: false, reason };
    this.bodies += 1;
    this.routes.set(route, routeBodies + 1);
    let held = 0;
    let released = false;
    return {
      ok: true,
      body: {
        hold: (bytes) => {
          if (released) return false;
          if (this.bytes + bytes > this.limits.maxBytes) return false;
          held += bytes;
          this.changeBytes(bytes);
          return true;
        },
        release: () => {
          if (released) return;
          released = true;
          this.bodies -= 1;
          this.routes.set(route, (this.routes.get(route) ?? 1) - 1);
          this.changeBytes(-held);
        },
      },
    };
  }

  private changeBytes(delta: number): void {
    this.bytes += delta;
    this.peak = Math.max(this.peak, this.bytes);
    this.onBytes?.(this.bytes);
  }
}
