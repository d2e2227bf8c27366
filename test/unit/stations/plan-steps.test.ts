import { describe, expect, it } from 'vitest';
import { planSteps, planStepsOfRepository } from '../../../activities/stations/plan-steps';

const PLAN = [
  '# Fix plan',
  '',
  'Option 1: validate before saving.',
  '',
  '1. Guard the null order in `save()` (repo: acme/api)',
  '2. Add a regression test for empty orders — repo: `acme/api`',
  '- Show the error instead of a blank page (repo:ACME/web)',
  '- Rename a variable in acme/api (no tag)',
  '## Step 4 repo: acme/typo',
].join('\n');

describe('plan steps', () => {
  it('lists the tagged steps of one repository, case-insensitively, without their list markers', () => {
    expect(planStepsOfRepository(PLAN, 'acme/api')).toEqual([
      'Guard the null order in `save()` (repo: acme/api)',
      'Add a regression test for empty orders — repo: `acme/api`',
    ]);
    expect(planStepsOfRepository(PLAN, 'acme/web')).toEqual(['Show the error instead of a blank page (repo:ACME/web)']);
    expect(planStepsOfRepository(PLAN, 'acme/other')).toEqual([]);
  });

  it('counts every tagged line as a step, known repository or not', () => {
    expect(planSteps(PLAN)).toHaveLength(4);
    expect(planSteps(PLAN)[3]).toBe('Step 4 repo: acme/typo');
    expect(planSteps('no tags here')).toEqual([]);
  });
});
