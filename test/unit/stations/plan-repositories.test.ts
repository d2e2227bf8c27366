import { describe, expect, it } from 'vitest';
import { plannedRepositories, repositoriesOfPlan } from '../../../activities/stations/plan-repositories';

describe('repo: tags of a plan', () => {
  it('finds every spelling once, in order of first mention, and not inside other words', () => {
    const plan = [
      '#### Step 1: Guard the save (repo: `acme/api`)',
      '- repo:acme/web: the button',
      'Also repo: ACME/api again, and the repository: acme/other is prose.',
      'myrepo: acme/nope',
    ].join('\n');
    expect(repositoriesOfPlan(plan)).toEqual(['acme/api', 'acme/web']);
  });

  it('keeps the configured spelling and reports tags that name no configured repository', () => {
    expect(plannedRepositories('repo: Acme/API\nrepo: acme/typo', ['acme/api', 'acme/web'])).toEqual({ repositories: ['acme/api'], unknown: ['acme/typo'] });
    expect(plannedRepositories('no tags here', ['acme/api'])).toEqual({ repositories: [], unknown: [] });
  });
});
