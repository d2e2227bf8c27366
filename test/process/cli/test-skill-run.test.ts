import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelSimulator, type ModelSimulator } from '../../../src/sandbox/model-simulator/model-simulator';
import { startService } from '../../helpers/service-process';

/**
 * `service test-skill run` as an operator runs it: the real binary (dist/), a skill folder in the one skill format,
 * a dataset of two inputs, a local repository folder, and the model simulator as the skill's model.
 */
async function run(args: string[], env: NodeJS.ProcessEnv) {
  const command = startService(['test-skill', 'run', ...args], env);
  const code = await command.exited;
  const stdout = command.stdout();
  return { code, stdout, stderr: command.output().replace(stdout, '') };
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

describe('service test-skill run (real binary, model simulator)', { timeout: 60_000 }, () => {
  let model: ModelSimulator;
  let env: NodeJS.ProcessEnv;
  let base: string;

  beforeAll(async () => {
    model = await startModelSimulator();
    env = {
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['skill-model', 'judge-model'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'skill-model' }),
      OPENAI_API_KEY: 'sk-test-skill-run-secret-0001',
    };
  });
  afterAll(async () => model?.close());
  beforeEach(() => {
    model.reset();
    base = mkdtempSync(join(tmpdir(), 'test-skill-run-'));
    write(join(base, 'skill', 'SKILL.md'), '---\nname: write_prd\ndescription: Writes a PRD.\n---\nYou write PRDs. Save the PRD as prd.md.\n');
    write(join(base, 'repos', 'api', 'src', 'report.ts'), 'export function exportReport() { return "pdf"; }\n');
    write(join(base, 'dataset', 'case-a', 'input.yaml'), 'ticket_key: PROJ-1\ntitle: Export reports as CSV\navailable_repos: [acme/api]\nprompt: Write the PRD.\nprompt_inputs:\n  description: Users want CSV.\n');
    write(join(base, 'dataset', 'case-b', 'input.yaml'), 'ticket_key: PROJ-2\ntitle: Dark mode\nprompt: Write the PRD.\n');
  });

  it('runs every input of a dataset with the read-only tools, writes the files, response.json and trace.json, and ends with a summary line', async () => {
    model.script(
      { tool_call: { name: 'search_files', arguments: JSON.stringify({ pattern: 'exportReport' }) } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'prd.md', content: '# CSV export\n\nReports are exported as CSV.\n' }) } },
      { content: 'Wrote prd.md.', usage: { prompt_tokens: 300, completion_tokens: 20 } },
      { tool_call: { name: 'write_file', arguments: JSON.stringify({ path: 'prd.md', content: '# Dark mode\n' }) } },
      { content: 'Done.' },
    );
    const out = join(base, 'out');
    const result = await run(['--skill', 'write_prd', '--skill-dir', join(base, 'skill'), '--dataset', join(base, 'dataset'), '--output', out, '--repos', join(base, 'repos', 'api'), '--project', 'PROJ'], env);
    expect(result.stderr).toContain('[##########----------] 1/2 case-b');
    expect(result.stderr).toContain('[####################] 2/2 done');
    expect(result.stdout).toMatch(/^test-skill run: 2\/2 inputs completed with write_prd on sim:skill-model; \d+ tokens/m);
    expect(result.code).toBe(0);

    expect(readFileSync(join(out, 'case-a', 'prd.md'), 'utf8')).toContain('Reports are exported as CSV.');
    expect(readFileSync(join(out, 'case-b', 'prd.md'), 'utf8')).toBe('# Dark mode\n');
    const response = json(join(out, 'case-a', 'response.json'));
    expect(response).toMatchObject({ ticket_key: 'PROJ-1', skill: 'write_prd', model: 'sim:skill-model', status: 'completed', final_text: 'Wrote prd.md.', generated_files: ['prd.md'], steps: 3, tool_calls: 2 });
    expect(response.usage.input_tokens).toBeGreaterThanOrEqual(300);
    const trace = json(join(out, 'case-a', 'trace.json'));
    expect(trace.steps[0].tool_calls[0]).toMatchObject({ tool: 'search_files', output: expect.stringContaining('acme/api:src/report.ts:1:') });
    expect(trace.repositories).toEqual([{ name: 'acme/api', folder: join(base, 'repos', 'api') }]);
    expect(JSON.stringify(trace)).not.toContain('sk-test-skill-run-secret');
    expect(json(join(out, 'summary.json'))).toMatchObject({ completed: 2, failed: 0, inputs: [{ id: 'case-a' }, { id: 'case-b' }] });

    // What the model was given: the skill as the system prompt, the input as the user message, only read-only tools.
    const first = model.requests[0]!;
    expect(first.model).toBe('skill-model');
    expect(first.messages![0]).toMatchObject({ role: 'system', content: expect.stringContaining('You write PRDs.') });
    expect(String(first.messages![1]!.content)).toContain('Ticket PROJ-1 (project PROJ): Export reports as CSV');
    expect(String(first.messages![1]!.content)).toContain('## description\n\nUsers want CSV.');
    expect(first.tools!.map((t) => t.function.name).sort()).toEqual(['list_files', 'read_file', 'search_files', 'write_file']);
    expect(model.received[0]!.authorization).toBe('Bearer sk-test-skill-run-secret-0001');
  });

  it('writes a single input straight into --output and exits 1 when the model fails', async () => {
    model.script({ status: 500, message: 'upstream broke' }, { status: 500, message: 'upstream broke' });
    const out = join(base, 'single');
    const result = await run(['--skill', 'write_prd', '--skill-dir', join(base, 'skill'), '--input', join(base, 'dataset', 'case-b', 'input.yaml'), '--output', out, '--model', 'judge-model'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0/1 inputs completed with write_prd on sim:judge-model');
    expect(result.stdout).toContain('not completed: case-b (failed)');
    expect(json(join(out, 'response.json'))).toMatchObject({ status: 'failed', error: expect.stringContaining('upstream broke') });
    expect(existsSync(join(out, 'trace.json'))).toBe(true);
  });

  it('refuses an invalid input before any model call, naming the file and the field', async () => {
    write(join(base, 'dataset', 'case-c', 'input.yaml'), 'ticket_key: PROJ-3\ntitle: x\nprompt: 42\n');
    const result = await run(['--skill', 'write_prd', '--skill-dir', join(base, 'skill'), '--dataset', join(base, 'dataset'), '--output', join(base, 'o')], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(base, 'dataset', 'case-c', 'input.yaml')}: prompt:`);
    expect(model.requests).toHaveLength(0);
  });

  it('needs exactly one of --input and --dataset, and a skill whose name matches', async () => {
    const neither = await run(['--skill', 'write_prd', '--skill-dir', join(base, 'skill'), '--output', join(base, 'o')], env);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/exactly one of the following must be provided: --dataset, --input|--input/);
    const wrong = await run(['--skill', 'other', '--skill-dir', join(base, 'skill'), '--input', join(base, 'dataset', 'case-a', 'input.yaml'), '--output', join(base, 'o')], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('is the skill "write_prd", not "other"');
  });
});
