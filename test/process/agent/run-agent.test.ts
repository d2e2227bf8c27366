import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentTools, workspacePath } from '../../../src/agent/agent-tools';
import type { AgentTask } from '../../../src/agent/agent-task';
import { proxyModel, runAgent } from '../../../src/agent/run-agent';
import { startModelProxy, type ModelProxy } from '../../../src/containers/model-proxy';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';

const exec = async (tools: ReturnType<typeof createAgentTools>, name: string, input: unknown) =>
  String(await (tools[name]!.execute as (i: unknown, o: unknown) => Promise<unknown>)(input, {}));

describe('the agent on the host (the same code the container runs)', () => {
  let root: string;
  let workspace: string;
  let runDir: string;
  let model: ModelSimulator;
  let proxy: ModelProxy;

  beforeAll(async () => {
    model = await startModelSimulator();
  });
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'agent-'));
    workspace = join(root, 'ws');
    runDir = join(root, 'run');
    mkdirSync(workspace);
    mkdirSync(runDir);
    execFileSync('git', ['init', '-q', workspace]);
    writeFileSync(join(workspace, 'a.txt'), 'one\ntwo\n');
    model.reset();
    await proxy?.close();
    proxy = await startModelProxy({ socketPath: join(runDir, 'model.sock'), upstream: { baseUrl: model.url, model: 'm', maxOutputTokens: 1000 }, tokenBudget: null });
  });
  afterAll(async () => {
    await proxy?.close();
    await model.close();
    rmSync(root, { recursive: true, force: true });
  });

  const task = (overrides: Partial<AgentTask> = {}): AgentTask => ({
    step: 'implement', ticket_key: 'A-1', skill: { name: 's', body: 'Do the task.' }, task: 'Edit a.txt', outputs: [], model: 'm',
    max_steps: 10, max_tokens: 100_000, max_output_tokens: 1000, command_timeout_seconds: 5, ...overrides,
  });

  it('keeps tools inside the workspace, edits exactly once and kills a command at its time limit', async () => {
    const tools = createAgentTools(workspace, 1);
    expect(() => workspacePath(workspace, '../etc/passwd')).toThrow(/outside the workspace/);
    expect(await exec(tools, 'read_file', { path: '/etc/passwd' })).toMatch(/^error: .*outside the workspace/);
    expect(await exec(tools, 'edit_file', { path: 'a.txt', old_text: 'o', new_text: 'x' })).toContain('occurs 2 times');
    expect(await exec(tools, 'edit_file', { path: 'a.txt', old_text: 'two', new_text: 'three' })).toBe('edited a.txt');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('one\nthree\n');
    expect(await exec(tools, 'search', { pattern: 'thr+ee' })).toContain('a.txt:2:three');
    expect(await exec(tools, 'git_status', {})).toContain('a.txt');
    const started = Date.now();
    expect(await exec(tools, 'run_command', { command: 'sleep 30' })).toContain('timed out after 1 s');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('runs the tool loop through the proxy socket, writes the transcript and reports missing outputs', async () => {
    model.script(
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'b.txt', content: 'new' }) } },
      { content: 'done' },
    );
    const result = await runAgent(task({ outputs: ['.service/missing.json'] }), { workspace, runDir }, proxyModel(join(runDir, 'model.sock'), 'm'));
    expect(result).toMatchObject({ status: 'completed', steps: 2, tool_calls: 1, outputs_missing: ['.service/missing.json'], final_text: 'done' });
    expect(readFileSync(join(workspace, 'b.txt'), 'utf8')).toBe('new');
    const transcript = readFileSync(join(runDir, 'transcript.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(transcript).toEqual([expect.objectContaining({ pass: 'skill', tool: 'write_file', output: expect.stringContaining('wrote 3 characters') })]);
  });

  it('stops at the step cap', async () => {
    for (let i = 0; i < 5; i += 1) model.script({ tool_call: { name: 'list_files', arguments: '{}' } });
    const result = await runAgent(task({ max_steps: 3 }), { workspace, runDir }, proxyModel(join(runDir, 'model.sock'), 'm'));
    expect(result.status).toBe('step_cap');
    expect(result.steps).toBe(3);
    expect(result.message).toContain('step cap (3)');
  });

  it('records a failed review cycle file for a reviewer answer with no verdict and gives up at max_cycles', async () => {
    model.script({ content: 'first' }, { content: 'hmm, not sure' }, { content: 'second' }, { content: 'still unsure' });
    const result = await runAgent(task({ review: { body: 'Review it.', max_retries: 1 } }), { workspace, runDir }, proxyModel(join(runDir, 'model.sock'), 'm'));
    expect(result.review).toEqual({ verdict: 'REJECTED', cycles: 2 });
    const cycle = JSON.parse(readFileSync(join(workspace, '.service', 'implement', 'review_cycle_2.json'), 'utf8'));
    expect(cycle).toMatchObject({ cycle: 2, max_cycles: 2, verdict: 'REJECTED', skill: 's' });
    expect(existsSync(join(workspace, '.service', 'implement', 'review_cycle_3.json'))).toBe(false);
  });
});
