import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerStations, type ContainerStationSpec } from '../../activities/stations/container-station';
import { parseMcpServers } from '../../src/config/mcp-servers';
import type { ModelConnection } from '../../src/config/model-configuration';
import { createGitRemotes, runGit } from '../../src/containers/git-remote';
import { resolvePodmanAccount } from '../../src/containers/podman-account';
import { createLogger } from '../../src/logging/logger';
import { startModelSimulator, type ChatCompletionRequest, type ModelSimulator, type ScriptedReply } from '../../src/sandbox/model-simulator/model-simulator';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import type { StationInput } from '../../workflows/runtime/station-types';
import { ensureContainerImage } from '../helpers/container-image';
import { LOOKUP_ANSWER, startLookupHttpServer, type LookupHttpServer } from '../fixtures/mcp/lookup-server';

const SCM_TOKEN = 'ghp_mcpTestToken0123456789abcdefXYZ';
const DOCS_TOKEN = 'docs-token-held-by-the-host-0123456789';
const REPO = 'acme/tools';
const logger = createLogger({ level: 'error' });
const connection = { name: 'sim', backend: 'openai-compatible', allowed_models: ['agent-model'], capabilities: ['tools'], max_output_tokens: 4096 } as unknown as ModelConnection;

/** The text of the tool results so far, in order (the AI SDK sends a string result as is, others as JSON). */
function toolResults(request: ChatCompletionRequest): string[] {
  return (request.messages ?? []).filter((m) => m.role === 'tool').map((m) => {
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    try {
      const parsed: unknown = JSON.parse(content);
      return typeof parsed === 'string' ? parsed : content;
    } catch {
      return content;
    }
  });
}

const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ tool_call: { name, arguments: JSON.stringify(args) } });

/**
 * The model: looks a term up on the remote server and on the one in the container, shows its environment and task,
 * then writes what the tools answered into the output file (from the conversation, so the file holds what came back).
 */
function respond(request: ChatCompletionRequest): ScriptedReply {
  const results = toolResults(request);
  switch (results.length) {
    case 0: return call('docs__lookup', { query: 'over http' });
    case 1: return call('local__lookup', { query: 'over stdio' });
    case 2: return call('run_command', { command: 'env; cat /run/service/task.json' });
    case 3: return call('write_file', { path: '.service/answers.md', content: `${results[0]}\n${results[1]}\n` });
    default: return { content: 'Done.' };
  }
}

describe('tool servers (MCP) for a container agent, with real podman and real MCP servers', () => {
  let scm: ScmhostSimulator;
  let model: ModelSimulator;
  let docs: LookupHttpServer;
  let workDir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    ensureContainerImage();
    Object.assign(process.env, { SCMHOST_TOKEN: SCM_TOKEN, OPENAI_API_KEY: 'sk-proxyonly-0123456789abcdefghijkl', DOCS_TOKEN });
    workDir = mkdtempSync(join(tmpdir(), 'mcp-station-'));
    chmodSync(workDir, 0o711);
    scm = await startScmhostSimulator({ tokens: { [SCM_TOKEN]: 'service-bot' }, repositories: [REPO] });
    model = await startModelSimulator({ respond });
    docs = await startLookupHttpServer(DOCS_TOKEN);
    // The stdio server is one bundled file in the repository, so the agent can start it inside the container.
    const esbuild = await import('esbuild');
    const bundled = join(workDir, 'lookup-server.cjs');
    await esbuild.build({ entryPoints: [join(__dirname, '..', 'fixtures', 'mcp', 'lookup-server.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: bundled, logLevel: 'error' });
    const clone = join(workDir, 'seed');
    const auth = { username: 'x-access-token', token: SCM_TOKEN };
    await runGit(['clone', '--quiet', `${scm.url}/${REPO}.git`, clone], { auth });
    mkdirSync(join(clone, 'tools'));
    copyFileSync(bundled, join(clone, 'tools', 'lookup-server.cjs'));
    writeFileSync(join(clone, 'README.md'), '# tools\n');
    await runGit(['add', '.'], { cwd: clone });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed'], { cwd: clone });
    await runGit(['push', '--quiet', `${scm.url}/${REPO}.git`, 'HEAD:main'], { cwd: clone, auth });
  }, 600_000);

  afterAll(async () => {
    process.env = saved;
    await scm?.close();
    await model?.close();
    await docs?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('offers an http server (through the proxy, credential added on the host) and a stdio server (started in the container) as tools', async () => {
    const mcpServers = parseMcpServers(JSON.stringify({
      servers: {
        docs: { transport: 'http', url: docs.url, headers: { Authorization: { env: 'DOCS_TOKEN', prefix: 'Bearer ' } } },
        local: { transport: 'stdio', command: 'node', args: ['/workspace/tools/lookup-server.cjs', 'stdio'] },
        unused: { transport: 'stdio', command: 'false' },
      },
      stages: { implement_work: ['docs', 'local'], code_review: ['unused'] },
    }), 'test', process.env);
    const spec: ContainerStationSpec = {
      skill: 'workspace-task', task: () => 'Look the term up with both tool servers and write what they answer to .service/answers.md.',
      outputs: () => ['.service/answers.md'], commitMessage: (i) => `[${i.ticket_key}] answers`,
    };
    const station = createContainerStations({
      config: {
        container: { image: 'service-dev:latest', memoryLimit: '1g', cpuLimit: 1, timeoutSeconds: 120, pidsLimit: 512, egressRepos: [], workDir, podmanUser: 'service-podman', agentMaxSteps: 20, agentCommandTimeoutSeconds: 60 },
        autoReview: { maxRetries: 3, pollIntervalSeconds: 0.5, recordPolledFiles: 'log' as const },
      } as never,
      logger, account: () => resolvePodmanAccount(), mcpServers,
      remotes: createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: SCM_TOKEN }),
      resolveModel: async () => ({ key: 'implement_work', target: { connection: 'sim', model: 'agent-model' }, connection: { ...connection, base_url: model.url }, source: 'deployment_default' }) as never,
    })(spec);
    const input: StationInput = {
      ticket_key: 'ACME-7', project_key: 'ACME', issue_type: 'Task', workflow_kind: 'task' as StationInput['workflow_kind'],
      run_id: 'run-acme-7-0001', node: 'execute_task_changes', station: 'implement', visit: 1,
      params: { repository: REPO }, artifacts: {}, outputs: {}, token_budget: 200_000,
    };
    const result = await station(input);
    const data = result.data as any;
    expect(data.agent.status, JSON.stringify(data)).toBe('completed');

    // The tools were offered under <server>__<tool>, next to the agent's own; the unlisted server was not.
    const offered = (model.requests[0]!.tools ?? []).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['docs__lookup', 'local__lookup', 'write_file']));
    expect(offered).not.toContain('unused__lookup');
    // The output file holds what both servers answered.
    const answers = data.outputs['.service/answers.md'] as string;
    expect(answers).toContain(`${LOOKUP_ANSWER} (query: over http)`);
    expect(answers).toContain(`${LOOKUP_ANSWER} (query: over stdio)`);
    expect(data.transcript.map((e: { tool: string }) => e.tool)).toEqual(['docs__lookup', 'local__lookup', 'run_command', 'write_file']);
    expect(data.tool_server_calls.every((c: { server: string }) => c.server === 'docs')).toBe(true);

    // The remote server got the credential from the host; the container never held it: not in its environment,
    // not in its task, nowhere in what went back to the model.
    expect(docs.seen.length).toBeGreaterThan(0);
    expect(docs.seen.every((h) => h.authorization === `Bearer ${DOCS_TOKEN}`)).toBe(true);
    const shown = toolResults(model.requests.at(-1)!)[2]!;
    expect(shown).toContain('PATH=');
    expect(shown).toContain('"mcp_servers"');
    expect(shown).toContain('"name": "docs"');
    const conversation = JSON.stringify(model.requests);
    expect(conversation).not.toContain(DOCS_TOKEN);
    expect(conversation).not.toContain(docs.url);
    expect(readFileSync(join(workDir, 'lookup-server.cjs'), 'utf8')).not.toContain(DOCS_TOKEN);
  }, 300_000);
});
