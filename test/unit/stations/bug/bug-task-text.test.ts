import { describe, expect, it } from 'vitest';
import {
  analysisTaskText, bugDocumentationText, bugLocalReviewText, chosenOption, implementBugFixText, planSection, planStepsForRepository, RCA_SHAPE,
} from '../../../../activities/stations/bug/bug-task-text';
import { planStepsMarkdown } from '../../../../activities/stations/bug/plan-bug-fix-station';
import { parseRcaReport, rcaReportSchema, type RcaReport } from '../../../../activities/stations/bug/rca-report';
import type { StationInput } from '../../../../workflows/runtime/station-types';

const rca: RcaReport = {
  summary: 'The cache key ignores the locale.',
  code_location: { file: 'src/cache.ts', function: 'keyOf', line_range: '10-14' },
  mechanism: 'Two locales share one entry.',
  trigger_to_symptom: 'A German user sees English prices.',
  hypothesis_log: ['CDN caching: ruled out, headers are private'],
  introduced_in: 'abc123',
  confidence: { level: 'high', percentage: 90, rationale: 'reproduced in a test' },
  reproducibility: 'always, with two locales',
  options: [
    { title: 'Add the locale to the key', description: 'Change keyOf in src/cache.ts.', tradeoffs: 'cache size grows' },
    { title: 'Disable the cache for prices', description: 'Skip the cache.', tradeoffs: 'slower' },
  ],
};

function input(overrides: Partial<StationInput> = {}): StationInput {
  return {
    ticket_key: 'BUG-7', project_key: 'BUG', issue_type: 'Bug', workflow_kind: 'bug', run_id: 'run', node: 'analyze_bug', station: 'analyze_bug',
    visit: 1, artifacts: {}, outputs: {}, token_budget: null, ...overrides,
  };
}
const ticket = { summary: 'Wrong prices', description: 'Prices show in the wrong currency.', comments: [{ author: 'Ann', body: 'Happens on Firefox too.' }] };
const args = { ticket, repository: 'acme/api', otherRepositories: ['acme/web'] };
const artifact = (text: string, approved?: string) => ({ text, digest: 'd', version: 1, updated_at: 'now', ...(approved ? { approved: { digest: 'a', at: 'now', text: approved } } : {}) });

describe('analysis task text', () => {
  it('gives the ticket, the triage notes, the repositories, the read-only rule and the exact shape of rca.json', () => {
    const text = analysisTaskText(input({ outputs: { triage_check: { verdict: 'incomplete', missing: ['environment', 'affected versions'], asked: null } } }), args);
    expect(text).toContain('repository acme/api');
    expect(text).toContain('`acme/web`');
    expect(text).toContain('BUG-7: Wrong prices');
    expect(text).toContain('Prices show in the wrong currency.');
    expect(text).toContain('- Ann: Happens on Firefox too.');
    expect(text).toContain('The report lacks: environment; affected versions.');
    expect(text).toContain('do not change, add or delete any file except the output file');
    expect(text).toContain('Write `.service/rca.json`');
    expect(text).toContain(RCA_SHAPE);
    for (const field of ['summary', 'code_location', 'function', 'line_range', 'mechanism', 'trigger_to_symptom', 'hypothesis_log', 'introduced_in', 'confidence', 'percentage', 'rationale', 'reproducibility', 'options', 'title', 'description', 'tradeoffs']) {
      expect(RCA_SHAPE).toContain(`"${field}"`);
    }
    expect(RCA_SHAPE).toContain('1 to 4 entries');
    expect(text).not.toContain('previous analysis');
    expect(text).not.toContain('was refused');
  });

  it('the shape it shows is one the host accepts once filled in', () => {
    const json = RCA_SHAPE.split('\n').filter((line) => !line.startsWith('```')).join('\n').split('Rules:')[0]!.replace('low | medium | high', 'medium');
    expect(rcaReportSchema.safeParse(JSON.parse(json)).success).toBe(true);
  });

  it('says the report is complete when the triage found nothing missing', () => {
    expect(analysisTaskText(input({ outputs: { triage_check: { verdict: 'complete', missing: [], asked: null } } }), args)).toContain('The triage found the report complete.');
  });

  it('carries a `!` from the RCA gate with the previous analysis', () => {
    const text = analysisTaskText(input({ request: { kind: 'feedback', text: 'Look at the CDN again.', author: 'Bob' }, outputs: { analyze_bug: { rca, repository: 'acme/api', other_repositories: [], attempts: 1 } } }), args);
    expect(text).toContain('## Feedback on the previous analysis from Bob');
    expect(text).toContain('Look at the CDN again.');
    expect(text).toContain('Summary: The cache key ignores the locale.');
    expect(text).toContain('1. Add the locale to the key');
    const regenerate = analysisTaskText(input({ request: { kind: 'regenerate', text: '' } }), args);
    expect(regenerate).toContain('## A new analysis was asked for');
    expect(regenerate).toContain('Do not repeat the previous analysis');
    // A question is answered elsewhere.
    expect(analysisTaskText(input({ request: { kind: 'question', text: 'why?' } }), args)).not.toContain('why?');
  });

  it('carries the critique of a reflection that sent the analysis back, and only then', () => {
    const outputs = { analyze_bug: { rca, repository: 'acme/api', other_repositories: [], attempts: 1 } };
    const sentBack = { verdict: 'critique', critique: 'The mechanism does not explain Firefox.', round: 2, sent_back: true, converged: false, option_count: 0 };
    const text = analysisTaskText(input({ outputs: { ...outputs, reflect_rca: sentBack } }), args);
    expect(text).toContain("critique of your previous analysis (round 2)");
    expect(text).toContain('The mechanism does not explain Firefox.');
    expect(text).toContain('## The previous analysis');
    const done = analysisTaskText(input({ outputs: { ...outputs, reflect_rca: { ...sentBack, sent_back: false } } }), args);
    expect(done).not.toContain('critique');
    expect(done).not.toContain('## The previous analysis');
  });

  it('names the validation errors on the second run', () => {
    const errors = (parseRcaReport('{"summary":"x"}') as { errors: string[] }).errors;
    const text = analysisTaskText(input(), { ...args, errors });
    expect(text).toContain('## Your .service/rca.json was refused');
    expect(text).toContain('- code_location');
  });
});

describe('planStepsForRepository', () => {
  it('takes the sections whose heading carries the tag, with their sub-sections', () => {
    const plan = [
      '# Fix plan', 'Intro for everyone.', '',
      '## API (repo: acme/api)', 'Change keyOf.', '### Tests', 'Add a test.', '### Web part (repo: acme/web)', 'Not ours.',
      '## Web (repo: acme/web)', 'Change the price view.',
    ].join('\n');
    const steps = planStepsForRepository(plan, 'ACME/api')!;
    expect(steps).toContain('## API (repo: acme/api)');
    expect(steps).toContain('Add a test.');
    expect(steps).not.toContain('Not ours.');
    expect(steps).not.toContain('price view');
    expect(steps).not.toContain('Intro');
    expect(planStepsForRepository(plan, 'acme/web')).toContain('Change the price view.');
    expect(planStepsForRepository(plan, 'acme/docs')).toBeUndefined();
  });

  it('takes only the tagged list items of a section that names several repositories', () => {
    const plan = [
      '## Steps',
      '1. Change keyOf (repo: acme/api)',
      '   so that the locale is part of it.',
      '2. Change the view (repo: `acme/web`)',
      '3. Add a test — repo: acme/api',
    ].join('\n');
    const steps = planStepsForRepository(plan, 'acme/api')!;
    expect(steps).toBe(['## Steps', '', '1. Change keyOf (repo: acme/api)\n   so that the locale is part of it.', '', '3. Add a test — repo: acme/api'].join('\n'));
  });

  it('takes a section whole when its body names only this repository', () => {
    const plan = ['## Step 1: the key', 'repo: acme/api', '', 'Change keyOf.', '', '## Step 2', 'repo: acme/web'].join('\n');
    expect(planStepsForRepository(plan, 'acme/api')).toBe('## Step 1: the key\nrepo: acme/api\n\nChange keyOf.');
  });
});

describe('planStepsForRepository with shared parts', () => {
  it('keeps what names no repository and leaves out only the other repositories\' steps of a plan_bug_fix plan', () => {
    const plan = [
      '## Fix plan for BUG-7', 'Option 1.', '### Steps',
      planStepsMarkdown([
        { repo: 'acme/api', summary: 'Key by locale', description: 'Change keyOf.' },
        { repo: 'acme/web', summary: 'Show the locale', description: 'Change the view.' },
        { repo: 'acme/api', summary: 'Regression test', description: 'Add a test.' },
      ]),
      '### Testing', 'Run both suites.',
    ].join('\n\n');
    const steps = planStepsForRepository(plan, 'acme/api', { shared: true })!;
    expect(steps).toContain('Option 1.');
    expect(steps).toContain('Key by locale');
    expect(steps).toContain('Change keyOf.');
    expect(steps).toContain('Regression test');
    expect(steps).toContain('Run both suites.');
    expect(steps).not.toContain('Show the locale');
    expect(steps).not.toContain('Change the view.');
    expect(planStepsForRepository(plan, 'acme/docs', { shared: true })).toBeUndefined();
    const section = planSection(plan, 'acme/api', 'The approved fix plan');
    expect(section[0]).toBe("## The approved fix plan for acme/api (the other repositories' steps are left out)");
    expect(planSection(plan, 'acme/docs', 'The approved fix plan')[0]).toContain('no step names acme/docs');
  });
});

describe('implementation, review and documentation texts of a fix', () => {
  const outputs = {
    analyze_bug: { rca, repository: 'acme/api', other_repositories: ['acme/web'], attempts: 1 },
    plan_bug_fix: { option: 1, repositories: ['acme/api', 'acme/web'], unknown_repositories: [], release_note: { component: 'c', fix: 'f', root_cause: 'r', impact: 'i' } },
  };
  const artifacts = {
    rca: artifact('RCA as posted, edited later', 'RCA as approved'),
    fix_plan: artifact('## API (repo: acme/api)\nChange keyOf.\n\n## Web (repo: acme/web)\nChange the view.', '## API (repo: acme/api)\nChange keyOf approved.\n\n## Web (repo: acme/web)\nChange the view.'),
  };
  const fixInput = (extra: Record<string, unknown> = {}) => input({ node: 'implement_bug_fix', station: 'implement_bug_fix', outputs: { ...outputs, ...extra }, artifacts, params: { ticket: { summary: 'Wrong prices', description: 'd' } } });

  it('implements the approved RCA, the chosen option and this repository\'s steps only', () => {
    const text = implementBugFixText(fixInput(), 'acme/api');
    expect(text).toContain('BUG-7 (Wrong prices)');
    expect(text).toContain('## The chosen fix: option 1, Add the locale to the key');
    expect(text).toContain('Change keyOf in src/cache.ts.');
    expect(text).toContain('Trade-offs accepted: cache size grows');
    expect(text).toContain('Change keyOf approved.');
    expect(text).not.toContain('Change the view.');
    expect(text).toContain('RCA as approved');
    expect(text).not.toContain('edited later');
    expect(text).toContain('`acme/web`: that is done separately');
    expect(text).toContain('.service/implementation.md');
    expect(text).not.toContain('local review asked');
    expect(chosenOption(fixInput())).toEqual({ number: 1, option: rca.options[0] });
  });

  it('puts this repository\'s local review findings first', () => {
    const review = { local_review: { verdict: 'changes_needed', repository: 'acme/api', findings: [{ file: 'src/cache.ts', problem: 'no test' }] } };
    expect(implementBugFixText(fixInput(review), 'acme/api')).toContain('## The local review asked for these changes (do them first)\n1. `src/cache.ts`: no test');
    expect(implementBugFixText(fixInput(review), 'acme/web')).not.toContain('local review asked');
  });

  it('falls back to the analysis and the whole plan when the artifacts say nothing for the repository', () => {
    const text = implementBugFixText(input({ outputs, artifacts: { fix_plan: artifact('Change everything.') } }), 'acme/api');
    expect(text).toContain('**Root cause:** The cache key ignores the locale.');
    expect(text).toContain('no step names acme/api');
    expect(text).toContain('Change everything.');
  });

  it('reviews and documents against the fix', () => {
    const review = bugLocalReviewText(fixInput(), 'acme/api');
    expect(review).toContain('removes the root cause');
    expect(review).toContain('.service/local_review.json');
    expect(review).toContain('Change keyOf approved.');
    expect(review).toContain('Do not change any file except the output file.');
    const docs = bugDocumentationText(fixInput(), 'acme/api');
    expect(docs).toContain('a bug was fixed');
    expect(docs).toContain('.service/documentation.md');
  });
});
