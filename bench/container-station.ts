/**
 * bench/container-station: the cost of one container station on this machine, end to end and offline: clone of a
 * mocked tree, a rootless podman container running the real agent against the model simulator, commit and push to a
 * local bare repository. Prints, per run and as medians, the container launch to first tool call latency and the
 * setup, agent and teardown times.
 *
 *   npm run bench:container -- [--runs 5]
 */
import { loadServiceConfig } from '../src/config/service-config';
import { runLocalContainerStation } from '../src/smoke/local-station-run';

function arg(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number`);
  return value;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function main(): Promise<void> {
  const runs = arg('runs', 5);
  const parsed = loadServiceConfig(process.env);
  if (!parsed.config) throw new Error(parsed.problems.join('\n'));
  const rows: Array<Record<string, number>> = [];
  console.log(`container station benchmark: ${runs} runs, image ${parsed.config.container.image}`);
  console.log('run  launch->first tool  setup  agent  teardown  total (ms)');
  for (let run = 1; run <= runs; run += 1) {
    const result = await runLocalContainerStation({ container: parsed.config.container, verificationFile: '.service/bench.txt' });
    if (!result.verificationText) throw new Error(`run ${run}: the agent did not write its file (${result.result.outcome})`);
    const t = result.timings;
    rows.push({ first: t.launch_to_first_tool_call_ms ?? NaN, setup: t.setup_ms, agent: t.agent_ms, teardown: t.teardown_ms, total: t.total_ms });
    console.log(`${String(run).padStart(3)}  ${String(t.launch_to_first_tool_call_ms).padStart(18)}  ${String(t.setup_ms).padStart(5)}  ${String(t.agent_ms).padStart(5)}  ${String(t.teardown_ms).padStart(8)}  ${String(t.total_ms).padStart(5)}`);
  }
  const m = (key: string) => median(rows.map((row) => row[key]!));
  console.log(`median: launch to first tool call ${m('first')} ms; setup ${m('setup')} ms, agent ${m('agent')} ms, teardown ${m('teardown')} ms, one station ${m('total')} ms`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
