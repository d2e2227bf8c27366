import { describe, expect, it } from 'vitest';
import { parseRcaReport } from '../../../../activities/stations/bug/rca-report';
import { isReadOnlyTask, requestedFiles, sandboxAgentReply, sandboxChangeFile, SIMULATED_AGENT_TEXT } from '../../../../src/sandbox/model-simulator/sandbox-agent';
import { sandboxResponder } from '../../../../src/sandbox/model-simulator/sandbox-responder';
import type { ChatCompletionRequest } from '../../../../src/sandbox/model-simulator/model-simulator';

const agentTools = ['list_files', 'read_file', 'write_file', 'edit_file'].map((name) => ({ type: 'function', function: { name } }));
const agent = (task: string, extra: ChatCompletionRequest['messages'] = []): ChatCompletionRequest => ({
  model: 'm', tools: agentTools, messages: [{ role: 'system', content: 'skill' }, { role: 'user', content: task }, ...extra],
});
const at = () => new Date('2026-11-24T10:00:00Z');

describe('the sandbox agent', () => {
  it('reads the files a task asks for', () => {
    expect(requestedFiles('Do it.\n\nWrite these files: .service/implementation.md, .service/x.json.')).toEqual(['.service/implementation.md', '.service/x.json']);
    expect(requestedFiles('Do it.')).toEqual([]);
  });

  it('writes the requested outputs and one visible change, then says it is done', () => {
    const first = sandboxAgentReply(agent('Ticket SBX-1: implement the tasks.\n\nWrite these files: .service/implementation.md.'), at);
    expect(first).toEqual({ tool_calls: [
      { name: 'write_file', arguments: JSON.stringify({ path: '.service/implementation.md', content: `# implementation.md\n\n${SIMULATED_AGENT_TEXT}\n` }) },
      { name: 'write_file', arguments: expect.stringContaining('"path":"SANDBOX_CHANGES/SBX-1.md"') },
    ] });
    const done = sandboxAgentReply(agent('x', [{ role: 'assistant', content: null }, { role: 'tool', content: 'wrote' }]));
    expect(done).toEqual({ content: `Done. ${SIMULATED_AGENT_TEXT}` });
  });

  it('changes a file of the ticket\'s own, so the pull requests of two tickets never touch the same file', () => {
    const changed = (task: string) => {
      const calls = (sandboxAgentReply(agent(task), at) as { tool_calls: Array<{ arguments: string }> }).tool_calls;
      return calls.map((call) => (JSON.parse(call.arguments) as { path: string }).path);
    };
    expect(changed('Ticket SBX-1: implement the tasks below in the repository sandbox/app.')).toEqual(['SANDBOX_CHANGES/SBX-1.md']);
    expect(changed('Ticket SBX-2 (Crash on save) is a bug. Fix it in the repository sandbox/app.')).toEqual(['SANDBOX_CHANGES/SBX-2.md']);
    // A later change of the same ticket (a CI fix, a review) edits the same file again.
    expect(changed('Ticket SBX-1: the CI checks of the pull request sandbox/app#1 failed on commit 0123456789ab.')).toEqual(['SANDBOX_CHANGES/SBX-1.md']);
    expect(sandboxChangeFile('Implement something.')).toBe('SANDBOX_CHANGES/no-ticket.md');
  });

  it('writes a passing local review and changes nothing when told not to', () => {
    const review = sandboxAgentReply(agent('Review. Do not change any file except the output file.\n\nWrite these files: .service/local_review.json.'));
    expect(review).toEqual({ tool_calls: [{ name: 'write_file', arguments: JSON.stringify({ path: '.service/local_review.json', content: `${JSON.stringify({ verdict: 'passed', findings: [] }, null, 2)}\n` }) }] });
  });

  it('writes a root-cause analysis with two fix options, and changes nothing in an analysis', () => {
    const reply = sandboxAgentReply(agent('Find its root cause. This is an analysis only: do not change, add or delete any file except the output file.\n\nWrite these files: .service/rca.json.'));
    const calls = (reply as { tool_calls: Array<{ name: string; arguments: string }> }).tool_calls;
    expect(calls).toHaveLength(1);
    const { path, content } = JSON.parse(calls[0]!.arguments) as { path: string; content: string };
    expect(path).toBe('.service/rca.json');
    const parsed = parseRcaReport(content);
    expect(parsed.ok && parsed.rca.options.map((o) => o.title)).toEqual(['Guard the failing call (simulated)', 'Rework the component (simulated)']);
    expect(isReadOnlyTask('Review. Do not change any file except the output file.')).toBe(true);
    expect(isReadOnlyTask('Fix the bug.')).toBe(false);
  });

  it('passes a qualitative review', () => {
    const review = sandboxAgentReply(agent('Review the branch. Do not change any file except the output file.\n\nWrite these files: .service/qualitative_review.json.'));
    expect(review).toEqual({ tool_calls: [{ name: 'write_file', arguments: JSON.stringify({ path: '.service/qualitative_review.json', content: `${JSON.stringify({ verdict: 'passed', findings: [] }, null, 2)}\n` }) }] });
  });

  it('leaves structured answers to the schema sampler', () => {
    const structured: ChatCompletionRequest = { messages: [{ role: 'user', content: 'PRD' }], response_format: { type: 'json_schema', json_schema: { schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } } } };
    expect(sandboxAgentReply(structured)).toBeUndefined();
    expect(JSON.parse((sandboxResponder(structured) as { content: string }).content)).toHaveProperty('title');
    expect(sandboxResponder(agent('Write these files: a.md.'))).toHaveProperty('tool_calls');
  });
});
