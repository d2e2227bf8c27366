import { describe, expect, it } from 'vitest';
import { planProjectSetup, type ProjectSetupOptions } from '../../../src/config/project-setup-plan';

const none: ProjectSetupOptions = { model: [], removeModel: [], clearModelPolicy: false, clearModelDefault: false };

describe('planProjectSetup', () => {
  it('validates syntax and canonical stage names, not the deployment registry', () => {
    expect(planProjectSetup({ ...none, model: ['code_review=any-connection:any-model'] }, undefined)).toEqual({
      ok: true, mutations: { 'service.model_policy': { operation: 'set', value: { code_review: 'any-connection:any-model' } } },
    });
  });

  it('collects every problem before writing anything', () => {
    const plan = planProjectSetup({ ...none, model: ['bad=a:b', 'ci_fix=nocolon'], defaultRepo: 'not-a-repo', prdProposalsPath: '../escape' }, undefined);
    expect(plan.ok).toBe(false);
    expect(plan.ok ? [] : plan.errors).toHaveLength(4);
  });

  it('refuses to merge into a stored policy that is itself broken', () => {
    const plan = planProjectSetup({ ...none, model: ['ci_fix=a:b'] }, { bogus_stage: 'a:b' });
    expect(plan).toEqual({ ok: false, errors: ['the current service.model_policy: unknown stage "bogus_stage"'] });
    expect(planProjectSetup({ ...none, model: ['ci_fix=a:b'], modelPolicy: '{}' }, { bogus_stage: 'a:b' }).ok).toBe(true);
  });
});
