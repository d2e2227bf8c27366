import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';

/**
 * The V8 flag that keeps a long-running worker's heaps near what they hold, or undefined when the operator set the
 * flag already (NODE_OPTIONS or the node command line win) or asked for V8's own heuristics (0).
 *
 * Why: V8 lets a heap grow to several times what its last full collection kept before it collects again. In a
 * worker parking thousands of tickets, the main thread's heap grew to about 500 MiB holding about 140 MiB
 * (bench:parked, 2,000 tickets); a fixed growing factor kept it near 190 MiB at the same parking rate.
 */
export function heapGrowingFlag(percent: number, execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  if (percent <= 0) return undefined;
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (given.some((arg) => arg.replace(/_/g, '-').startsWith(FLAG))) return undefined;
  return `${FLAG}=${Math.floor(percent)}`;
}

/**
 * Sets the growing factor for the whole process. V8 reads it at every full collection, so it takes effect in a
 * process that is already running, and in the SDK's workflow threads started after it. Returns the flag set.
 */
export function limitHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS): string | undefined {
  const flag = heapGrowingFlag(percent, execArgv, nodeOptions);
  if (flag) setFlagsFromString(flag);
  return flag;
}
