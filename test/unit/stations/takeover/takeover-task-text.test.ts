import { describe, expect, it } from 'vitest';
import { takeoverPlanMarkdown } from '../../../../activities/stations/takeover/generate-plan-station';
import {
  executeTaskChangesText, qualitativeReviewFindings, qualitativeReviewText, QUALITATIVE_REVIEW_FILE, takeoverDocumentationText, takeoverLocalReviewText,
} from '../../../../activities/stations/takeover/takeover-task-text';
import type { StationInput } from '../../../../workflows/runtime/station-types';

const plan = takeoverPlanMarkdown({
  overview: 'Move the export to a background job.',
  steps: [
    { repo: 'acme/api', summary: 'Queue the export', description: 'Add a job in src/jobs.' },
    { repo: 'acme/web', summary: 'Poll for the result', description: 'Show a spinner.' },
  ],
  acceptance_checks: ['An export of 10k rows does not time out.'],
}, { ticketKey: 'OPS-3', revision: 1 });

function input(outputs: Record<string, unknown> = {}, approvedPlan = plan): StationInput {
  return {
    ticket_key: 'OPS-3', project_key: 'OPS', issue_type: 'Task', workflow_kind: 'task_takeover', run_id: 'run', node: 'execute_task_changes',
    station: 'execute_task_changes', visit: 1, outputs: { generate_plan: { repositories: ['acme/api', 'acme/web'], unknown_repositories: [] }, ...outputs },
    artifacts: { plan: { text: 'a later, unapproved plan', digest: 'd', version: 2, updated_at: 'now', approved: { digest: 'a', at: 'now', text: approvedPlan } } },
    params: { ticket: { summary: 'Exports time out', description: 'Large exports fail after 30 s.' } }, token_budget: null,
  };
}

describe('execute_task_changes text', () => {
  it('gives the ticket and the approved plan as it concerns this repository', () => {
    const text = executeTaskChangesText(input(), 'acme/api');
    expect(text).toContain('OPS-3: Exports time out');
    expect(text).toContain('Large exports fail after 30 s.');
    expect(text).toContain('Move the export to a background job.');
    expect(text).toContain('Queue the export');
    expect(text).toContain('An export of 10k rows does not time out.');
    expect(text).not.toContain('Poll for the result');
    expect(text).not.toContain('a later, unapproved plan');
    expect(text).toContain('`acme/web`: that is done separately');
    expect(text).toContain('.service/implementation.md');
    expect(text).not.toContain('qualitative review asked');
  });

  it('puts the findings of a qualitative review of this repository first, and only of this one', () => {
    const review = { run_qualitative_review: { verdict: 'changes_needed', repository: 'acme/api', findings: [{ file: 'src/jobs.ts', problem: 'no retry', suggestion: 'retry twice' }] } };
    expect(qualitativeReviewFindings(input(review), 'acme/api')).toBe('1. `src/jobs.ts`: no retry (suggestion: retry twice)');
    expect(executeTaskChangesText(input(review), 'acme/api')).toContain('## The qualitative review asked for these changes (do them first)');
    expect(qualitativeReviewFindings(input(review), 'acme/web')).toBeUndefined();
    expect(qualitativeReviewFindings(input({ run_qualitative_review: { ...review.run_qualitative_review, verdict: 'passed' } }), 'acme/api')).toBeUndefined();
  });

  it('works from the ticket when there is no plan, and from the whole plan when no step names the repository', () => {
    const none = { ...input(), artifacts: {} };
    expect(executeTaskChangesText(none, 'acme/api')).toContain('(the plan is not available: work from the ticket)');
    expect(executeTaskChangesText(input({}, 'Just do it.'), 'acme/api')).toContain('no step names acme/api');
  });
});

describe('run_qualitative_review text', () => {
  it('reviews against the ticket and the plan, writes the verdict JSON and changes nothing else', () => {
    const text = qualitativeReviewText(input(), 'acme/api');
    expect(QUALITATIVE_REVIEW_FILE).toBe('.service/qualitative_review.json');
    expect(text).toContain('Write `.service/qualitative_review.json` as JSON: {"verdict": "passed" | "changes_needed", "findings": [{"file": "...", "problem": "...", "suggestion": "..."}]}');
    expect(text).toContain('Do not change any file except the output file.');
    expect(text).toContain('Exports time out');
    expect(text).toContain('Queue the export');
  });

  it('has plan-based local review and documentation texts', () => {
    expect(takeoverLocalReviewText(input(), 'acme/web')).toContain('Poll for the result');
    expect(takeoverLocalReviewText(input(), 'acme/web')).toContain('.service/local_review.json');
    expect(takeoverDocumentationText(input(), 'acme/web')).toContain('.service/documentation.md');
  });
});
