import { describe, expect, it } from 'vitest';
import { epicsToClose, isDone } from '../../../../activities/stations/code-change/completion-stations';
import { describePullRequest, issueEffectName, workOfRepository } from '../../../../activities/stations/code-change/pull-request-stations';
import { sha256 } from '../../../../activities/stations/planning/document-stations';
import { parseModelConfiguration } from '../../../../src/config/model-configuration';
import type { ModelClient } from '../../../../src/models/model-client';
import type { TrackerIssue } from '../../../../src/providers/tracker/tracker-types';
import type { ArtifactRecord, StationInput } from '../../../../workflows/runtime/station-types';

const issue = (key: string, issueType: string, extra: Partial<TrackerIssue> = {}): TrackerIssue => ({
  id: key, key, projectKey: 'FD', summary: key, description: '', labels: [], issueType, status: 'To Do', statusCategory: 'new', created: '', updated: '', ...extra,
});

describe('delivery host stations', () => {
  const children = [
    issue('FD-2', 'Epic', { labels: ['repo:acme/api'] }),
    issue('FD-3', 'Epic', { labels: ['repo:acme/web'] }),
    issue('FD-4', 'Task', { parentKey: 'FD-2', labels: ['repo:acme/api'] }),
    issue('FD-5', 'Task', { parentKey: 'FD-3', labels: ['repo:ACME/web'] }),
    issue('FD-6', 'Task', { parentKey: 'FD-3', labels: ['repo:acme/web'], status: 'Closed', statusCategory: 'done' }),
  ];

  it('finds the tasks of one repository and the epics above them', () => {
    const web = workOfRepository(children, 'acme/web');
    expect(web.tasks.map((t) => t.key)).toEqual(['FD-5', 'FD-6']);
    expect(web.epics.map((e) => e.key)).toEqual(['FD-3']);
    expect(workOfRepository(children, 'acme/other')).toEqual({ tasks: [], epics: [] });
  });

  it('closes an epic only when every child task is done', () => {
    expect(epicsToClose(children)).toEqual([]);
    expect(epicsToClose(children, new Set(['FD-5'])).map((e) => e.key)).toEqual(['FD-3']);
    const allDone = children.map((c) => (c.issueType === 'Task' ? { ...c, status: 'Closed', statusCategory: 'done' } : c));
    expect(epicsToClose(allDone).map((e) => e.key)).toEqual(['FD-2', 'FD-3']);
    // An epic without tasks is not closed by the service: nothing says its work is done.
    expect(epicsToClose([issue('FD-9', 'Epic')])).toEqual([]);
  });

  it('reads done from the status category, or from the status name when the category is missing', () => {
    expect(isDone({ status: 'Shipped', statusCategory: 'done' })).toBe(true);
    expect(isDone({ status: 'Closed', statusCategory: 'indeterminate' })).toBe(false);
    expect(isDone({ status: 'Resolved' })).toBe(true);
    expect(isDone({ status: 'In Review' })).toBe(false);
  });

  it('names effects per issue in the contract\'s lower_snake_case', () => {
    expect(issueEffectName('start', 'FD-12')).toBe('start_fd_12');
    expect(issueEffectName('pr', 'acme/web-app')).toBe('pr_acme_web_app');
    expect(issueEffectName('close', 'X'.repeat(80))).toHaveLength(64);
  });
});

function approved(text: string): ArtifactRecord {
  const digest = sha256(text);
  return { text, digest, version: 1, updated_at: '', approved: { digest, at: '', text } };
}

function prInput(workflow_kind: StationInput['workflow_kind'], extra: Partial<StationInput> = {}): StationInput {
  return {
    ticket_key: 'KEY-1', project_key: 'KEY', issue_type: null, workflow_kind, run_id: 'run-1', node: 'create_pr', station: 'create_pr', visit: 1,
    artifacts: {}, outputs: { next_repository: { repository: 'acme/api', index: 0, count: 2 } }, token_budget: null, ...extra,
  };
}

const PLAN = '# Plan\n1. Guard the lookup (repo: acme/api)\n2. Show the error (repo: acme/web)\n3. Test drafts (repo: acme/api)';

describe('the pull request description', () => {
  it('tells the model the report of the graph\'s implementation station and the tasks of the repository', async () => {
    const prompts: string[] = [];
    const models = {
      generateStructured: async (call: { prompt: string }) => {
        prompts.push(call.prompt);
        return { object: { summary: 'Described.', changes: '', checks: '' }, strategy: 'native', usage: { inputTokens: 1, outputTokens: 1 }, latencySeconds: 0, target: 'sim:m', source: 'default' };
      },
      generateText: async () => { throw new Error('not used'); },
    } as unknown as ModelClient;
    const env = { MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9', allowed_models: ['writer'], capabilities: ['structured_output', 'tools'] } }), MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'writer' }) };
    const parsed = parseModelConfiguration(env);
    expect(parsed).toMatchObject({ problems: [] });
    const deps = { models, modelConfig: parsed.config!, properties: { getProjectProperty: async () => undefined } };
    const report = (text: string) => ({ outputs: { '.service/implementation.md': text }, files: ['src/a.ts'] });
    const outputs = { implement_task: report('feature report'), implement_bug_fix: report('bug report'), execute_task_changes: report('takeover report') };

    await describePullRequest(deps, prInput('bug', { outputs, artifacts: { fix_plan: approved(PLAN) } }), 'acme/api', 'Crash on save');
    expect(prompts[0]).toContain('bug report');
    expect(prompts[0]).not.toContain('feature report');
    expect(prompts[0]).toContain('## Tasks\n- Guard the lookup (repo: acme/api)\n- Test drafts (repo: acme/api)\n');
    expect(prompts[0]).toContain('the root cause and the release note below your parts: do not repeat them');
    await describePullRequest(deps, prInput('task_takeover', { outputs, artifacts: { plan: approved(PLAN) } }), 'acme/web', 'Rate limit');
    expect(prompts[1]).toContain('takeover report');
    expect(prompts[1]).toContain('- Show the error (repo: acme/web)');
    await describePullRequest(deps, prInput('feature', { outputs }), 'acme/api', 'Export');
    expect(prompts[2]).toContain('feature report');
    expect(prompts[2]).toContain('## Tasks\n(none listed for this repository)');
    expect(prompts[2]).toContain('The service adds the list of tasks below your parts');
    expect(prompts[2]).not.toContain('root cause');
  });
});
