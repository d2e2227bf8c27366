import { describe, expect, it } from 'vitest';
import { chosenOption } from '../../../../activities/stations/bug/plan-bug-fix-station';
import { plannedRepositories } from '../../../../activities/stations/plan-repositories';
import { planSteps, planStepsOfRepository } from '../../../../activities/stations/plan-steps';
import { stationFailureDetails } from '../../../../activities/stations/station-failure';
import { artifact, fakeWorld, stationInput } from './host-station-fakes';
import { analysisFixture } from './rca-fixture';

const plan = (repos = ['acme/api', 'acme/web']) => ({
  steps: repos.map((repo, i) => ({ repo, summary: `Change ${i + 1}`, description: `## Details\n\nEdit the exporter. Unrelated repo: other/thing mention.` })),
  release_note: { component: 'Export', fix: 'Large reports export again.', root_cause: 'A closed cursor was read.', impact: 'Exports over 5,000 rows crashed.' },
  testing: 'A regression test exports 10,000 rows.',
});
const previousPlan = (option: number) => ({ option, repositories: ['acme/api'], unknown_repositories: [], release_note: plan().release_note });

describe('the chosen fix option', () => {
  it('is the one `>option N` chose, else the one planned before, else 1', () => {
    expect(chosenOption({ outputs: { plan_bug_fix: previousPlan(1) }, request: { kind: 'option_selected', option: 2, text: '>option 2' } })).toBe(2);
    expect(chosenOption({ outputs: { plan_bug_fix: previousPlan(2) }, request: { kind: 'feedback', text: '! fewer steps' } })).toBe(2);
    expect(chosenOption({ outputs: {} })).toBe(1);
  });
});

describe('plan_bug_fix', () => {
  it('plans the chosen option with a `repo:` tag on every step and posts it as the fix plan', async () => {
    const world = fakeWorld();
    world.answers.push(plan());
    const result = await world.stations.plan_bug_fix(stationInput('plan_bug_fix', {
      outputs: { analyze_bug: analysisFixture(3) },
      request: { kind: 'option_selected', option: 2, text: '>option 2, and keep the API stable', author: 'Lee' },
    }));

    const prompt = world.calls[0]!.prompt;
    expect(world.calls[0]!.system).toContain('writing the plan to fix a bug');
    expect(prompt).toContain('## The chosen fix option (plan this one)\n\n#### Option 2: Fix 2');
    expect(prompt).toContain('keep the API stable');
    expect(prompt).toContain('- acme/api\n- acme/web');
    expect(result.outcome).toBe('planned');
    const text = result.artifacts!.fix_plan!.text;
    expect(text).toContain('**Fix option 2:** Fix 2');
    expect(text).toContain('#### Step 1: Change 1 (repo: `acme/api`)\n\n**Details**\n\nEdit the exporter.');
    expect(planSteps(text)).toEqual(['Step 1: Change 1 (repo: `acme/api`)', 'Step 2: Change 2 (repo: `acme/web`)']);
    expect(planStepsOfRepository(text, 'acme/web')).toEqual(['Step 2: Change 2 (repo: `acme/web`)']);
    expect(text).toContain('- **Root cause:** A closed cursor was read.');
    // Only the step tags count: a `repo:` in the model's prose is no tag.
    expect(plannedRepositories(text, ['acme/api', 'acme/web'])).toEqual({ repositories: ['acme/api', 'acme/web'], unknown: [] });
    expect(result.data).toEqual({ option: 2, repositories: ['acme/api', 'acme/web'], unknown_repositories: [], release_note: plan().release_note });
    expect(result.effects!.map((e) => e.name)).toEqual(['post_fix_plan_part_1']);
    expect((result.effects![0]!.operation as { body: string }).body).toContain('service:plan-approved');
  });

  it('keeps the option across a `!` at the plan gate and gives the model the current plan', async () => {
    const world = fakeWorld();
    world.answers.push(plan(['acme/api']));
    const result = await world.stations.plan_bug_fix(stationInput('plan_bug_fix', {
      visit: 2, outputs: { analyze_bug: analysisFixture(3), plan_bug_fix: previousPlan(3) },
      artifacts: { fix_plan: artifact('## Fix plan for BUG-1\n\nthe old plan') }, request: { kind: 'feedback', text: 'Only touch the API.', author: 'Lee' },
    }));
    expect(world.calls[0]!.prompt).toContain('#### Option 3: Fix 3');
    expect(world.calls[0]!.prompt).toContain('## Current fix plan (revise this)\n\n## Fix plan for BUG-1\n\nthe old plan');
    expect(world.calls[0]!.prompt).toContain('Only touch the API.');
    expect(result.data).toMatchObject({ option: 3, repositories: ['acme/api'] });
    expect(result.artifacts!.fix_plan!.text).toContain('## Fix plan for BUG-1 (revision 2)');
  });

  it('plans option 1 when yolo approved the analysis', async () => {
    const world = fakeWorld();
    world.answers.push(plan(['acme/web']));
    const result = await world.stations.plan_bug_fix(stationInput('plan_bug_fix', { outputs: { analyze_bug: analysisFixture(2) } }));
    expect(result.data).toMatchObject({ option: 1, repositories: ['acme/web'] });
  });

  it('blocks on an option the analysis does not offer, before calling the model', async () => {
    const world = fakeWorld();
    const error = await world.stations.plan_bug_fix(stationInput('plan_bug_fix', {
      outputs: { analyze_bug: analysisFixture(2) }, request: { kind: 'option_selected', option: 3, text: '>option 3' },
    })).catch((e: unknown) => e);
    expect(stationFailureDetails(error)).toMatchObject({ code: 'option_out_of_range' });
    expect(stationFailureDetails(error)!.recovery).toContain('1 to 2');
    expect(world.calls).toHaveLength(0);
  });

  it('plans from the RCA comment when the outputs no longer hold the analysis', async () => {
    const world = fakeWorld();
    world.answers.push(plan(['acme/api']));
    const result = await world.stations.plan_bug_fix(stationInput('plan_bug_fix', {
      outputs: { analyze_bug: { truncated: true, bytes: 70_000 }, reflect_rca: { option_count: 2 } },
      artifacts: { rca: artifact('## Root-cause analysis for BUG-1\n\nthe approved analysis', true) },
      request: { kind: 'option_selected', option: 2, text: '>option 2' },
    }));
    expect(world.calls[0]!.prompt).toContain('## Root-cause analysis (approved)\n\n## Root-cause analysis for BUG-1\n\nthe approved analysis');
    expect(world.calls[0]!.prompt).toContain('Option 2 of the analysis above');
    expect(result.data).toMatchObject({ option: 2 });
  });

  it('blocks with a clear recovery when the project has no repository', async () => {
    const world = fakeWorld({ repositories: { status: 'missing', missing: ['service.repos'], problems: [], require_project_config: true } });
    const error = await world.stations.plan_bug_fix(stationInput('plan_bug_fix', { outputs: { analyze_bug: analysisFixture() } })).catch((e: unknown) => e);
    expect(stationFailureDetails(error)).toMatchObject({ code: 'repository_missing' });
    expect(stationFailureDetails(error)!.recovery).toContain('service.repos');
  });
});
