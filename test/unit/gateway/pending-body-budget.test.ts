import { describe, expect, it } from 'vitest';
import { DEFAULT_PENDING_BODY_LIMITS, MIB, MIN_PENDING_BODY_MIB } from '../../../src/config/gateway-limits';
import { admissionRefusal, PendingBodyBudget } from '../../../src/gateway/pending-body-budget';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../../../src/gateway/webhook-body';

const limits = { maxBodies: 3, maxBodiesPerRoute: 2, maxBytes: 100 };

describe('admissionRefusal', () => {
  it('checks the route\'s count, then the total, then whether a declared length fits in the bytes left', () => {
    expect(admissionRefusal({ bodies: 0, routeBodies: 0, bytes: 0 }, limits)).toBeUndefined();
    expect(admissionRefusal({ bodies: 2, routeBodies: 2, bytes: 0 }, limits)).toBe('route_pending_bodies');
    expect(admissionRefusal({ bodies: 3, routeBodies: 1, bytes: 0 }, limits)).toBe('pending_bodies');
    expect(admissionRefusal({ bodies: 1, routeBodies: 1, bytes: 60 }, limits, 41)).toBe('pending_bytes');
    expect(admissionRefusal({ bodies: 1, routeBodies: 1, bytes: 60 }, limits, 40)).toBeUndefined();
  });
});

describe('PendingBodyBudget', () => {
  it('caps bodies per route and in total, and gives a slot back once released', () => {
    const budget = new PendingBodyBudget(limits);
    const a = budget.admit('tracker');
    const b = budget.admit('tracker');
    expect(budget.admit('tracker')).toEqual({ ok: false, reason: 'route_pending_bodies' });
    const c = budget.admit('scmhost');
    expect(budget.admit('scmhost')).toEqual({ ok: false, reason: 'pending_bodies' });
    expect([a.ok, b.ok, c.ok]).toEqual([true, true, true]);
    if (a.ok) a.body.release();
    expect(budget.admit('tracker').ok).toBe(true);
  });

  it('holds bytes chunk by chunk, refuses the chunk that would go past the budget, and releases all of a body once', () => {
    const seen: number[] = [];
    const budget = new PendingBodyBudget(limits, (bytes) => seen.push(bytes));
    const first = budget.admit('tracker');
    const second = budget.admit('scmhost');
    if (!first.ok || !second.ok) throw new Error('both admitted');
    expect(first.body.hold(60)).toBe(true);
    expect(second.body.hold(41)).toBe(false);
    expect(second.body.hold(40)).toBe(true);
    expect(budget.heldBytes).toBe(100);
    first.body.release();
    first.body.release();
    expect(first.body.hold(1)).toBe(false);
    expect([budget.heldBytes, budget.pendingBodies, budget.peakBytes]).toEqual([40, 1, 100]);
    expect(seen).toEqual([60, 100, 40]);
  });

  it('lets one body of the largest route limit fit in the least budget the configuration accepts', () => {
    expect(MIN_PENDING_BODY_MIB * MIB).toBe(WEBHOOK_BODY_LIMIT_BYTES);
    expect(DEFAULT_PENDING_BODY_LIMITS.maxBytes).toBeGreaterThanOrEqual(WEBHOOK_BODY_LIMIT_BYTES);
  });
});
