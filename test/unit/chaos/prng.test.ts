import { describe, expect, it } from 'vitest';
import { createPrng } from '../../../chaos/prng';

describe('the campaign PRNG', () => {
  it('draws the same sequence for the same seed and a different one for another seed', () => {
    const draw = (seed: number) => { const rng = createPrng(seed); return Array.from({ length: 8 }, () => rng.next()); };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    for (const value of draw(7)) expect(value >= 0 && value < 1).toBe(true);
  });

  it('keeps integers in their bounds and reaches both ends', () => {
    const rng = createPrng(3);
    const seen = new Set(Array.from({ length: 500 }, () => rng.int(2, 5)));
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
    expect(() => rng.int(5, 2)).toThrow(RangeError);
  });

  it('gives forks their own stream, independent of draws made on the parent', () => {
    const a = createPrng(11);
    const b = createPrng(11);
    b.next(); b.next();
    expect(a.fork('faults').next()).toBe(b.fork('faults').next());
    expect(a.fork('faults').next()).not.toBe(a.fork('tickets').next());
  });
});
