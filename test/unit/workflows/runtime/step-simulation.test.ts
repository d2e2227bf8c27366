import { afterAll, describe, expect, it } from 'vitest';
import { liveNodes } from '../../../simulation/invariants';
import {
  addCoverage, emptyCoverage, formatTrace, REPLAY_COMMAND, SEED_VARIABLE, SIMULATED_DEFINITIONS, simulate, type Coverage, type SimulationResult,
} from '../../../simulation/step-simulation';

/**
 * The deterministic simulation of the ticket decider (test/simulation/step-simulation.ts): many seeds, each a world
 * of people, providers and stations around a model of the driver, with every invariant checked after every step.
 * A failure names its seed; `STEP_SIMULATION_SEED=<seed>` runs that seed alone and prints its trace.
 */

const SEEDS = 500;
const STEPS_PER_SEED = 200;

/** Happenings the generator must keep producing, or it has decayed into exploring less than it claims. */
const REQUIRED_HAPPENINGS = [
  'block: stopped', 'block: invalid_station_result', 'block: effect_unresolved', 'block: unrecognized_command', 'block: conflicting_evidence',
  'block: retry_bound_exhausted', 'block: ci_fix_limit', 'block: pull_request_closed', 'block: station_not_available',
  'stop', 'stop: station cancelled', 'retry: resumed', 'retry: escalation resumed', 'retry: review response', 'corrected command lifted a block',
  'yolo: gate passed', 'rebase', 'rebase: returned', 'retry bound exhausted', 'question detour', 'skip-gate: CI judged again',
  'final fact moved a blocked ticket', 'completed', 'crash: decision replayed', 'raw command', 'effect failed: required', 'station failed',
  'ledger: redelivery dropped', 'ledger: conflict', 'migration applied', 'continue-as-new',
];

function expectedNodes(): string[] {
  return SIMULATED_DEFINITIONS.flatMap(({ kind, definition }) => Object.keys(definition.nodes).map((node) => `${kind}/${node}`));
}

function expectedGateOutcomes(): string[] {
  return SIMULATED_DEFINITIONS.flatMap(({ kind, definition }) => Object.entries(definition.nodes)
    .flatMap(([node, spec]) => (spec.kind === 'gate' ? Object.keys(spec.on).map((outcome) => `${kind}/${node}/${outcome}`) : [])));
}

function coverageReport(coverage: Coverage): string {
  return [...coverage.happenings].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${name}: ${count}`).join(', ');
}

const replaySeed = process.env[SEED_VARIABLE];

if (replaySeed !== undefined) {
  describe(`step simulation of seed ${replaySeed}`, () => {
    it('breaks no invariant', () => {
      const result = simulate(Number(replaySeed), STEPS_PER_SEED);
      console.log(`seed ${result.seed} on ${result.definition}: ${result.steps} steps, ${result.tickets} tickets\n${formatTrace(result.trace)}`);
      expect(result.failure?.message, result.failure?.message).toBeUndefined();
    });
  });
} else {
  describe('step simulation', () => {
    const total = emptyCoverage();
    const failures: SimulationResult[] = [];

    it(`runs ${SEEDS} seeds × ${STEPS_PER_SEED} steps over every built-in definition without breaking an invariant`, () => {
      for (let seed = 1; seed <= SEEDS; seed += 1) {
        const result = simulate(seed, STEPS_PER_SEED);
        addCoverage(total, result.coverage);
        if (result.failure) failures.push(result);
      }
      const first = failures[0]?.failure;
      const message = first
        ? `${failures.length} of ${SEEDS} seeds broke an invariant (seeds ${failures.slice(0, 20).map((f) => f.seed).join(', ')}${failures.length > 20 ? ', ...' : ''}). The first:\n${first.message}\n` +
          `(run one seed alone, with its trace: ${SEED_VARIABLE}=<seed> ${REPLAY_COMMAND})`
        : '';
      expect(failures.length, message).toBe(0);
      expect(total.steps).toBeGreaterThanOrEqual(SEEDS * STEPS_PER_SEED);
    });

    afterAll(() => {
      // The coverage line, and the bugs the simulation still finds (test/simulation/invariants.ts KNOWN_BUGS).
      const known = [...total.happenings].filter(([name]) => name.startsWith('known bug: ')).map(([name, n]) => `${name.slice('known bug: '.length)} (${n}×)`);
      console.log(`step simulation: ${total.steps} steps, ${total.nodes.size} nodes, ${total.gateOutcomes.size} gate outcomes${known.length > 0 ? `; known bugs hit: ${known.join('; ')}` : ''}`);
    });

    it('explored every node, every outcome of every gate, and every kind of trouble', () => {
      expect(expectedNodes().filter((node) => !total.nodes.has(node)), 'nodes never entered').toEqual([]);
      expect(expectedGateOutcomes().filter((outcome) => !total.gateOutcomes.has(outcome)), 'gate outcomes never taken').toEqual([]);
      const missing = REQUIRED_HAPPENINGS.filter((name) => (total.happenings.get(name) ?? 0) === 0);
      expect(missing, `happenings never produced (seen: ${coverageReport(total)})`).toEqual([]);
    });

    it('replays a seed exactly: the same events, actions and states', () => {
      const once = simulate(7, STEPS_PER_SEED);
      const twice = simulate(7, STEPS_PER_SEED);
      expect(once.steps).toBeGreaterThanOrEqual(STEPS_PER_SEED);
      expect(JSON.stringify(twice.trace)).toBe(JSON.stringify(once.trace));
    });

    it('walks graphs whose every node still reaches a gate or an end', () => {
      for (const { definition } of SIMULATED_DEFINITIONS) expect([...liveNodes(definition)].sort()).toEqual(Object.keys(definition.nodes).sort());
    });
  });
}
