/**
 * The program that runs inside the task container (bundled into one file by bundle-agent.ts and mounted at
 * /opt/service/agent.cjs): `node agent.cjs [run-dir]`. It reads task.json from the run folder, talks to the model
 * only through the proxy socket in that folder, and writes result.json there. Exit 0 when it finished (whatever
 * the verdict), 1 when it could not run at all.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONTAINER_RUN_DIR, CONTAINER_WORKSPACE, type AgentTask } from './agent-task';
import { proxyModel, runAgent } from './run-agent';

async function main(): Promise<number> {
  const runDir = process.argv[2] ?? CONTAINER_RUN_DIR;
  const workspace = process.env.SERVICE_WORKSPACE ?? CONTAINER_WORKSPACE;
  const task = JSON.parse(await readFile(join(runDir, 'task.json'), 'utf8')) as AgentTask;
  const result = await runAgent(task, { workspace, runDir }, proxyModel(join(runDir, 'model.sock'), task.model));
  await writeFile(join(runDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`agent: ${result.status}, ${result.steps} steps, ${result.tool_calls} tool calls, review ${result.review.verdict}\n`);
  return 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
