import { describe, expect, it } from 'vitest';
import { plannedRepositories } from '../../../../activities/stations/plan-repositories';
import { planSteps } from '../../../../activities/stations/plan-steps';
import { stationFailureDetails } from '../../../../activities/stations/station-failure';
import { artifact, fakeWorld, stationInput } from '../bug/host-station-fakes';

const answer = {
  overview: 'Add a dark theme switch.',
  steps: [
    { repo: 'acme/web', summary: 'Add the theme toggle', description: 'In `src/settings.tsx`.' },
    { repo: 'acme/api', summary: 'Store the preference', description: 'A `theme` column; see repo: acme/other.' },
    { repo: 'acme/web', summary: 'Read the preference', description: 'On load.' },
  ],
  acceptance_checks: ['The toggle switches the theme.', 'The choice survives a reload.'],
};
const takeover = (extra = {}) => stationInput('generate_plan', { ticket_key: 'BUG-1', workflow_kind: 'task_takeover', issue_type: 'Task', ...extra });

describe('generate_plan', () => {
  it('writes the plan with a repository tag per step, in the order the repositories first appear', async () => {
    const world = fakeWorld({ issue: { issueType: 'Task', summary: 'Dark theme' } });
    world.answers.push(answer);
    const result = await world.stations.generate_plan(takeover());
    expect(world.calls[0]!.system).toContain('existing Task or Epic');
    expect(world.calls[0]!.tools).toBe(false);
    expect(result.outcome).toBe('generated');
    const text = result.artifacts!.plan!.text;
    expect(text).toContain('### Acceptance checks\n\n- The toggle switches the theme.\n- The choice survives a reload.');
    expect(plannedRepositories(text, ['acme/api', 'acme/web'])).toEqual({ repositories: ['acme/web', 'acme/api'], unknown: [] });
    expect(result.data).toEqual({ repositories: ['acme/web', 'acme/api'], unknown_repositories: [] });
    expect(planSteps(text)).toEqual(['Step 1: Add the theme toggle (repo: `acme/web`)', 'Step 2: Store the preference (repo: `acme/api`)', 'Step 3: Read the preference (repo: `acme/web`)']);
    expect(result.effects!.map((e) => e.name)).toEqual(['post_plan_part_1']);
    expect(result.effects!.some((e) => e.operation.kind === 'tracker.labels')).toBe(false);
  });

  it('revises the current plan with `!` feedback', async () => {
    const world = fakeWorld();
    world.answers.push(answer);
    const result = await world.stations.generate_plan(takeover({
      visit: 2, artifacts: { plan: artifact('## Plan for BUG-1\n\nold') }, request: { kind: 'feedback', text: 'No API change, please.', author: 'Kim' },
    }));
    expect(world.calls[0]!.prompt).toContain('## Current plan (revise this)\n\n## Plan for BUG-1\n\nold');
    expect(world.calls[0]!.prompt).toContain('## Feedback from Kim\n\nNo API change, please.');
    expect(result.artifacts!.plan!.text.startsWith('## Plan for BUG-1 (revision 2)')).toBe(true);
  });

  it('only lets the model name a configured repository', async () => {
    const world = fakeWorld();
    world.answers.push({ ...answer, steps: [{ repo: 'evil/repo', summary: 'x', description: 'y' }] });
    await expect(world.stations.generate_plan(takeover())).rejects.toThrow();
  });

  it('blocks when the project has no repository', async () => {
    const world = fakeWorld({ repositories: { status: 'unchecked', reason: 'no tracker' } });
    const error = await world.stations.generate_plan(takeover()).catch((e: unknown) => e);
    expect(stationFailureDetails(error)?.code).toBe('repository_missing');
  });
});
