/**
 * The simulation's only source of choice: mulberry32, 32 bits of state and the same numbers on every machine and
 * Node version. Everything the simulation does is a function of the seed through this generator, so a failing seed
 * replays exactly.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Neighbouring seeds (1, 2, 3, ...) start far apart in the sequence.
    this.state = Math.imul(seed >>> 0, 0x9e3779b9) >>> 0;
  }

  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** In [0, 1). */
  float(): number {
    return this.nextUint32() / 4_294_967_296;
  }

  /** In [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: nothing to pick from');
    return items[this.int(items.length)]!;
  }

  /** One of `choices` with probability proportional to its weight (weights of 0 are never picked). */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    if (total <= 0) throw new Error('Rng.weighted: no choice has a weight');
    let roll = this.float() * total;
    for (const [weight, choice] of choices) {
      if (roll < weight) return choice;
      roll -= weight;
    }
    return choices.at(-1)![1];
  }
}
