/**
 * The program that runs inside the task container (bundled into one file by bundle-agent.ts and mounted at
 * /opt/service/agent.cjs): `node agent.cjs [run-dir]`. It reads task.json from the run folder, talks to the model
 * only through the proxy socket in that folder, and writes result.json there. Exit 0 when it finished (whatever
 * the verdict), 1 when it could not run at all.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactSecrets } from '../redaction/redact-secrets';
import { createAgentTools } from './agent-tools';
import { CONTAINER_RUN_DIR, CONTAINER_WORKSPACE, type AgentTask, type AgentTranscriptEntry } from './agent-task';
import { connectMcpServers } from './mcp-tools';
import { proxyModel, runAgent } from './run-agent';

async function main(): Promise<number> {
  const runDir = process.argv[2] ?? CONTAINER_RUN_DIR;
  const workspace = process.env.SERVICE_WORKSPACE ?? CONTAINER_WORKSPACE;
  const task = JSON.parse(await readFile(join(runDir, 'task.json'), 'utf8')) as AgentTask;
  const socketPath = join(runDir, 'model.sock');
  const mcp = await connectMcpServers(task.mcp_servers ?? [], { workspace, socketPath }, {
    reserved: Object.keys(createAgentTools(workspace, task.command_timeout_seconds)), callTimeoutMs: task.command_timeout_seconds * 1000,
  });
  // A server that did not start is in the transcript (the host's timeline); the agent works on without it.
  for (const failure of mcp.failures) {
    const entry: AgentTranscriptEntry = { at: new Date().toISOString(), pass: 'setup', tool: `mcp:${failure.server}`, input: '', output: redactSecrets(`tool server did not start: ${failure.message}`), ms: failure.ms };
    await appendFile(join(runDir, 'transcript.jsonl'), `${JSON.stringify(entry)}\n`);
  }
  let result;
  try {
    result = await runAgent(task, { workspace, runDir }, proxyModel(socketPath, task.model), { tools: mcp.tools });
  } finally {
    await mcp.close();
  }
  await writeFile(join(runDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`agent: ${result.status}, ${result.steps} steps, ${result.tool_calls} tool calls, review ${result.review.verdict}\n`);
  return 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
