/**
 * chaos: a seeded fault campaign over whole flows (issue 31).
 *
 *   npm run chaos -- [--seeds N] [--seed S] [--tickets K] [--light] [--keep] [--timeline] [--stuck-after SECONDS]
 *
 * Runs seeds S, S+1, ... S+N-1 (default 1..N): per seed a fresh world, K tickets driven by the sandbox's person,
 * worker/gateway/Temporal kills, a second worker started and stopped, vendor faults and webhook faults drawn from the
 * seed; then the invariants (writes once, each acknowledged person's action reflected, each draft edit in the
 * artefact, where each ticket ends, no activity retrying once the faults are cleared, replay). One line per seed,
 * the details of every failing seed, a summary; exit 1 on any violation.
 */
import { ensureTemporalCli } from '../src/temporal/temporal-cli-locator';
import { describeFault } from './fault-plan';
import { runSeed, type SeedResult } from './run-seed';

export interface ChaosArgs {
  seeds: number;
  seed: number;
  tickets: number;
  light: boolean;
  keep: boolean;
  stuckAfterSeconds: number;
  /** Print the fault timeline of passing seeds too. */
  timeline: boolean;
}

export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

/** Parses the command line; `--seed S` alone runs exactly that seed. Pure. */
export function parseChaosArgs(argv: string[]): ChaosArgs {
  const args: ChaosArgs = { seeds: 1, seed: 1, tickets: 3, light: false, keep: false, stuckAfterSeconds: 0, timeline: false };
  let seedsGiven = false;
  for (let i = 0; i < argv.length; i += 1) {
    const name = argv[i]!;
    const number = () => {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 0) throw new ChaosUsageError(`${name} needs a whole number ≥ 0, got ${argv[i] ?? 'nothing'}`);
      return value;
    };
    switch (name) {
      case '--seeds': args.seeds = number(); seedsGiven = true; break;
      case '--seed': args.seed = number(); break;
      case '--tickets': args.tickets = number(); break;
      case '--stuck-after': args.stuckAfterSeconds = number(); break;
      case '--light': args.light = true; break;
      case '--keep': args.keep = true; break;
      case '--timeline': args.timeline = true; break;
      default: throw new ChaosUsageError(`unknown argument ${name}; usage: npm run chaos -- [--seeds N] [--seed S] [--tickets K] [--light] [--keep] [--timeline] [--stuck-after SECONDS]`);
    }
  }
  if (args.seeds < 1 && seedsGiven) throw new ChaosUsageError('--seeds must be at least 1');
  if (args.tickets < 1) throw new ChaosUsageError('--tickets must be at least 1');
  if (!args.stuckAfterSeconds) args.stuckAfterSeconds = args.light ? 120 : 900;
  return args;
}

/** The one line of a seed. Pure. */
export function seedLine(result: SeedResult): string {
  const kinds = result.tickets.map((t) => `${t.key} ${t.kind}`).join(', ');
  const { webhooks } = result.faultsApplied;
  const verdict = result.verdict.violations.length === 0 ? 'PASS' : `FAIL (${result.verdict.violations.length} violation${result.verdict.violations.length === 1 ? '' : 's'})`;
  return `seed ${result.seed}: ${result.tickets.length} tickets (${kinds}); faults ${result.faultsFired}/${result.plan.faults.length} fired `
    + `(${result.faultsApplied.kills} kills, ${result.faultsApplied.secondWorkers ? `a second worker up and down (${result.secondWorkerActivities} activity attempts on it), ` : ''}${result.faultsApplied.vendor} vendor faults applied), webhooks ${webhooks.dropped} dropped/${webhooks.duplicated} duplicated/${webhooks.delayed} delayed; `
    + `${result.blocksCleared ? `${result.blocksCleared} blocks cleared by service:retry; ` : ''}${result.verdict.writesChecked} writes checked, ${result.actionsChecked} person's actions checked, ${result.replayed} histories replayed; ${(result.durationMs / 1000).toFixed(1)} s: ${verdict}`;
}

export function failureReport(result: SeedResult, light: boolean, tickets: number): string {
  const lines = [`--- seed ${result.seed} failed; reproduce with: npm run chaos -- --seed ${result.seed} --tickets ${tickets}${light ? ' --light' : ''}`];
  for (const v of result.verdict.violations) lines.push(`  VIOLATED ${v.invariant}${v.ticket ? ` [${v.ticket}]` : ''}${v.write ? ` write: ${v.write}` : ''}: ${v.detail}`);
  lines.push('  planned faults (times from the moment the stack was up; the timeline counts from the seed\'s start):');
  for (const { atMs, fault } of result.plan.faults) lines.push(`    +${(atMs / 1000).toFixed(1)} s ${describeFault(fault)}`);
  const w = result.plan.webhooks;
  lines.push(`  webhook odds: drop ${w.drop}, duplicate ${w.duplicate}, delay ${w.delay} (up to ${w.maxDelayMs} ms)`);
  lines.push('  timeline:');
  for (const entry of result.timeline) lines.push(`    +${(entry.atMs / 1000).toFixed(1)} s ${entry.what}`);
  lines.push(`  data kept in ${result.dataDir} only with --keep; worker output (end):`);
  lines.push(...result.workerTail.split('\n').map((line) => `    ${line}`));
  return lines.join('\n');
}

async function main(): Promise<number> {
  const args = parseChaosArgs(process.argv.slice(2));
  const cliPath = await ensureTemporalCli({ report: (line) => console.log(line) });
  const results: SeedResult[] = [];
  const errors: Array<{ seed: number; message: string }> = [];
  const first = args.seed;
  const started = Date.now();
  for (let seed = first; seed < first + args.seeds; seed += 1) {
    try {
      const result = await runSeed({
        seed, tickets: args.tickets, light: args.light, cliPath, keep: args.keep,
        stuckAfterMs: args.stuckAfterSeconds * 1000, deadlineMs: args.light ? 15 * 60_000 : 90 * 60_000, log: (line) => console.log(line),
      });
      results.push(result);
      console.log(seedLine(result));
      if (result.verdict.violations.length > 0) console.log(failureReport(result, args.light, args.tickets));
      else if (args.timeline) for (const entry of result.timeline) console.log(`    +${(entry.atMs / 1000).toFixed(1)} s ${entry.what}`);
    } catch (error) {
      errors.push({ seed, message: (error as Error).stack ?? String(error) });
      console.log(`seed ${seed}: ERROR (the harness could not finish the seed): ${(error as Error).message}`);
    }
  }
  const failed = results.filter((r) => r.verdict.violations.length > 0);
  const writes = results.reduce((sum, r) => sum + r.verdict.writesChecked, 0);
  const faults = results.reduce((sum, r) => sum + r.faultsFired, 0);
  const actions = results.reduce((sum, r) => sum + r.actionsChecked, 0);
  console.log(`chaos: ${results.length + errors.length} seeds (${first}..${first + args.seeds - 1}${args.light ? ', light' : ''}) in ${((Date.now() - started) / 1000).toFixed(1)} s: `
    + `${results.length - failed.length} passed, ${failed.length} failed${failed.length ? ` (${failed.map((r) => r.seed).join(', ')})` : ''}, ${errors.length} harness errors${errors.length ? ` (${errors.map((e) => e.seed).join(', ')})` : ''}; `
    + `${faults} faults fired, ${writes} writes checked, ${actions} person's actions checked`);
  for (const error of errors) console.log(`--- seed ${error.seed}: harness error\n${error.message}`);
  return failed.length > 0 || errors.length > 0 ? 1 : 0;
}

if (require.main === module) {
  // Exiting runs the supervisor's exit hook, which kills what it started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(error instanceof ChaosUsageError ? 2 : 1);
  });
}
