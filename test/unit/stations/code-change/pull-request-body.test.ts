import { describe, expect, it } from 'vitest';
import type { RcaReport } from '../../../../activities/stations/bug/rca-report';
import { descriptionPartsOf, pullRequestBody, pullRequestTaskLines, type DescriptionParts } from '../../../../activities/stations/code-change/pull-request-body';
import { createDescriptionSync } from '../../../../activities/stations/code-change/pull-request-description-sync';
import { sha256 } from '../../../../activities/stations/planning/document-stations';
import { parseModelConfiguration } from '../../../../src/config/model-configuration';
import type { ModelClient } from '../../../../src/models/model-client';
import type { ArtifactRecord, StationInput } from '../../../../workflows/runtime/station-types';

const RCA: RcaReport = {
  summary: 'save() dereferences a missing order.',
  code_location: { file: 'src/orders/save.ts', function: 'save', line_range: '40-52' },
  mechanism: 'The lookup returns undefined for drafts.',
  trigger_to_symptom: 'Saving a draft crashes the page.',
  hypothesis_log: [], introduced_in: 'unknown', confidence: { level: 'high', percentage: 90, rationale: 'reproduced' }, reproducibility: 'always',
  options: [{ title: 'Guard the lookup', description: 'd', tradeoffs: 't' }],
};

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
const PARTS: DescriptionParts = { summary: 'What and why.', changes: '- Guarded the lookup.', checks: 'The unit tests ran.' };
const FOOTER = ['---', '_Opened by the service for KEY-1._'];

const bugInput = () => prInput('bug', {
  artifacts: { fix_plan: approved(PLAN) },
  outputs: {
    analyze_bug: { rca: RCA, repository: 'acme/api', other_repositories: [], attempts: 1 },
    plan_bug_fix: { option: 1, repositories: ['acme/api'], unknown_repositories: [], release_note: { component: 'Orders', fix: 'Drafts save again.', root_cause: 'A missing order was read.', impact: 'Draft users.' } },
  },
});

describe('the pull request body the service owns', () => {
  it('keeps a feature\'s body to the model\'s parts, the tasks of the repository and the footer', () => {
    expect(pullRequestBody(prInput('feature'), 'acme/api', { summary: '  What and why.\n', changes: '', checks: '' }).split('\n')).toEqual([
      '<!-- service:description -->', 'What and why.', '<!-- /service:description -->', '', ...FOOTER,
    ]);
  });

  it('puts the tasks, the root cause and the release note of a bug after the model\'s parts and before the footer', () => {
    expect(pullRequestBody(bugInput(), 'acme/api', PARTS).split('\n')).toEqual([
      '<!-- service:description -->', 'What and why.', '', '## Changes', '', '- Guarded the lookup.', '', '## How it was checked', '', 'The unit tests ran.', '<!-- /service:description -->', '',
      '## Tasks', '', '- Guard the lookup (repo: acme/api)', '- Test drafts (repo: acme/api)', '',
      '## Root cause', '', 'save() dereferences a missing order.', '', '- **Code location:** `src/orders/save.ts` in `save` (lines 40-52)', '- **Mechanism:** The lookup returns undefined for drafts.', '',
      '## Release note', '', '- **Component:** Orders', '- **Fix:** Drafts save again.', '- **Root cause:** A missing order was read.', '- **Impact:** Draft users.', '',
      ...FOOTER,
    ]);
    // Without an analysis in the outputs the sections are left out rather than written empty.
    expect(pullRequestBody(prInput('bug'), 'acme/api', PARTS)).not.toContain('## Root cause');
  });

  it('starts a takeover\'s body with a warning when the qualitative review of this repository still asked for changes', () => {
    const review = { verdict: 'changes_needed', repository: 'acme/api', findings: [{ file: 'src/a.ts', problem: 'No test\nfor drafts', suggestion: 'add one' }, { problem: 'Unused import' }] };
    const body = pullRequestBody(prInput('task_takeover', { outputs: { run_qualitative_review: review } }), 'acme/api', { summary: 'What and why.', changes: '', checks: '' });
    expect(body.split('\n').slice(0, 6)).toEqual([
      '> ⚠️ **The qualitative review still asked for changes after two rounds.** The service opened this pull request anyway: check these findings before you approve it.',
      '>', '> 1. `src/a.ts`: No test for drafts (suggestion: add one)', '> 2. Unused import', '', '<!-- service:description -->',
    ]);
    expect(pullRequestBody(prInput('task_takeover', { outputs: { run_qualitative_review: { ...review, repository: 'acme/web' } } }), 'acme/api', PARTS)).not.toContain('⚠️');
    expect(pullRequestBody(prInput('task_takeover', { outputs: { run_qualitative_review: { ...review, verdict: 'passed' } } }), 'acme/api', PARTS)).not.toContain('⚠️');
  });

  it('lists the plan steps of the repository for a bug (fix plan) and a takeover (plan), the draft tasks for a feature', () => {
    expect(pullRequestTaskLines(prInput('bug', { artifacts: { fix_plan: approved(PLAN) } }), 'acme/api')).toEqual(['- Guard the lookup (repo: acme/api)', '- Test drafts (repo: acme/api)']);
    expect(pullRequestTaskLines(prInput('task_takeover', { artifacts: { plan: approved(PLAN) } }), 'acme/web')).toEqual(['- Show the error (repo: acme/web)']);
    expect(pullRequestTaskLines(prInput('bug'), 'acme/api')).toEqual([]);
    const draft = { kind: 'tasks', items: [{ id: 1, summary: 'Export', description: 'CSV', repo: 'acme/api', acceptance_criteria: [], excluded: false, epic_key: 'KEY-2' }] };
    expect(pullRequestTaskLines(prInput('feature', { artifacts: { fix_plan: approved(PLAN) }, outputs: { generate_tasks: { draft } } }), 'acme/api')).toEqual(['- Export: CSV']);
  });

  it('reads the model\'s parts back from a body it rendered, and the whole text of a body without the markers', () => {
    expect(descriptionPartsOf(pullRequestBody(bugInput(), 'acme/api', PARTS))).toEqual(PARTS);
    expect(descriptionPartsOf(pullRequestBody(bugInput(), 'acme/api', { ...PARTS, changes: '' }))).toEqual({ ...PARTS, changes: '' });
    expect(descriptionPartsOf('Old text.\n\n## Root cause\n\nx\n\n---\n_Opened by the service for KEY-1._')).toEqual({ summary: 'Old text.\n\n## Root cause\n\nx', changes: '', checks: '' });
    // A model that wrote the markers into its text does not split the next reading.
    const hostile = pullRequestBody(bugInput(), 'acme/api', { ...PARTS, summary: 'a <!-- /service:description --> b' });
    expect(descriptionPartsOf(hostile).summary).toBe('a  b');
  });
});

describe('sync_pr_description', () => {
  it('keeps the tasks, the root cause and the release note of a bug\'s body whatever the model writes', async () => {
    const prompts: string[] = [];
    const models = {
      // A model that drops everything it was not asked for: only its three parts can change.
      generateStructured: async (call: { prompt: string }) => {
        prompts.push(call.prompt);
        return { object: { summary: 'Guards the lookup; the CI fix makes the test wait for the save.', changes: '- Guarded the lookup.\n- The save test waits.', checks: 'CI is green.' }, strategy: 'native', usage: { inputTokens: 3, outputTokens: 2 }, latencySeconds: 0, target: 'sim:m', source: 'default' };
      },
      generateText: async () => { throw new Error('not used'); },
    } as unknown as ModelClient;
    const parsed = parseModelConfiguration({
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9', allowed_models: ['writer'], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'writer' }),
    });
    const before = pullRequestBody(bugInput(), 'acme/api', PARTS);
    const sync = createDescriptionSync({
      models, modelConfig: parsed.config!, properties: { getProjectProperty: async () => undefined },
      scmhost: async () => ({ getPullRequest: async () => ({ title: '[KEY-1] Crash on save', body: before }) as never }),
    });
    const { effect } = await sync(bugInput(), { repository: 'acme/api', number: 7 }, 'A fix for the failed CI checks unit-tests (attempt 1)');
    expect(prompts[0]).toContain('### Changes\n- Guarded the lookup.');
    expect(prompts[0]).not.toContain('## Root cause');
    const body = (effect.operation as { body: string }).body;
    expect(body).toContain('Guards the lookup; the CI fix makes the test wait for the save.');
    expect(body).toContain('- The save test waits.');
    for (const section of ['## Tasks', '## Root cause', '## Release note', '- **Fix:** Drafts save again.', '_Opened by the service for KEY-1._']) expect(body).toContain(section);
    expect(effect.operation).toMatchObject({ kind: 'scmhost.update_pr', repository: 'acme/api', number: 7 });
  });
});
