import { describe, expect, it } from 'vitest';
import { ChaosUsageError, parseChaosArgs } from '../../../chaos/chaos';

describe('npm run chaos arguments', () => {
  it('defaults to one seed of three tickets, with podman, and a longer patience without --light', () => {
    expect(parseChaosArgs([])).toEqual({ seeds: 1, seed: 1, tickets: 3, light: false, keep: false, stuckAfterSeconds: 900, timeline: false });
    expect(parseChaosArgs(['--light']).stuckAfterSeconds).toBe(120);
  });

  it('reads --seeds, --seed, --tickets and --light', () => {
    expect(parseChaosArgs(['--seeds', '100', '--light', '--tickets', '2'])).toMatchObject({ seeds: 100, seed: 1, tickets: 2, light: true });
    expect(parseChaosArgs(['--seed', '42'])).toMatchObject({ seeds: 1, seed: 42 });
  });

  it('refuses what it does not know, naming it', () => {
    expect(() => parseChaosArgs(['--seeds', 'many'])).toThrow(ChaosUsageError);
    expect(() => parseChaosArgs(['--tickets', '0'])).toThrow(/--tickets must be at least 1/);
    expect(() => parseChaosArgs(['--fast'])).toThrow(/unknown argument --fast/);
  });
});
