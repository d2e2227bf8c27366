import { describe, expect, it } from 'vitest';
import { rebaseBranchSource, type RebasePull } from '../../../../activities/stations/code-change/rebase-branch-source';

const BRANCH = 'service/acme-5';
const github = (extra: Partial<RebasePull> = {}): RebasePull => ({
  repository: 'acme/app', ref: 'acme/app#7', host: 'github', baseRef: 'main', configuredMode: 'direct', headRepository: 'acme/app', headRef: BRANCH, ...extra,
});

describe('rebaseBranchSource', () => {
  it('merges on the upstream when the pull request\'s head is there (any letter case)', () => {
    expect(rebaseBranchSource(github(), BRANCH)).toEqual({ kind: 'upstream' });
    expect(rebaseBranchSource(github({ headRepository: 'Acme/App' }), BRANCH)).toEqual({ kind: 'upstream' });
    expect(rebaseBranchSource(github({ headRepository: undefined }), BRANCH)).toEqual({ kind: 'upstream' });
  });

  it('fetches from and pushes to the fork a fork-mode pull request comes from, whatever the configured mode', () => {
    expect(rebaseBranchSource(github({ headRepository: 'service-bot/app' }), BRANCH)).toEqual({ kind: 'fork', repository: 'service-bot/app' });
    expect(rebaseBranchSource(github({ headRepository: 'service-bot/app', configuredMode: 'fork' }), BRANCH)).toEqual({ kind: 'fork', repository: 'service-bot/app' });
  });

  it('refuses a deleted fork and a fork branch that is not the ticket\'s, with a recovery', () => {
    expect(rebaseBranchSource(github({ headRepository: null }), BRANCH)).toMatchObject({ kind: 'refuse', code: 'rebase_fork_missing', recovery: expect.stringContaining('service:retry') });
    const other = rebaseBranchSource(github({ headRepository: 'someone/app', headRef: 'patch-1' }), BRANCH);
    expect(other).toMatchObject({ kind: 'refuse', code: 'rebase_unsupported', message: expect.stringContaining('someone/app:patch-1') });
    expect(other).toMatchObject({ recovery: 'merge main into the branch by hand and push, then add service:retry' });
  });

  it('merges a GitLab merge request on the project, or on the service account\'s fork it comes from, and refuses anyone else\'s fork', () => {
    const gitlab: RebasePull = { repository: 'web', ref: 'web!4', host: 'gitlab', baseRef: 'develop', configuredMode: 'fork', headRef: BRANCH };
    expect(rebaseBranchSource(gitlab, BRANCH)).toEqual({ kind: 'upstream' });
    expect(rebaseBranchSource({ ...gitlab, configuredMode: 'direct' }, BRANCH)).toEqual({ kind: 'upstream' });
    expect(rebaseBranchSource({ ...gitlab, headRepository: 'service-bot/web', serviceFork: 'service-bot/web' }, BRANCH)).toEqual({ kind: 'fork', repository: 'service-bot/web' });
    expect(rebaseBranchSource({ ...gitlab, headRepository: 'Service-Bot/Web', serviceFork: 'service-bot/web' }, BRANCH)).toEqual({ kind: 'fork', repository: 'Service-Bot/Web' });
    const someoneElse = rebaseBranchSource({ ...gitlab, headRepository: 'someone/web', serviceFork: 'service-bot/web' }, BRANCH);
    expect(someoneElse).toMatchObject({ kind: 'refuse', code: 'rebase_unsupported', message: expect.stringContaining('someone/web, which is not the service account\'s fork (service-bot/web)') });
    expect(rebaseBranchSource({ ...gitlab, headRepository: 'someone/web', serviceFork: null }, BRANCH)).toMatchObject({ kind: 'refuse', code: 'rebase_unsupported' });
    expect(rebaseBranchSource({ ...gitlab, headRepository: null }, BRANCH)).toMatchObject({ kind: 'refuse', code: 'rebase_fork_missing' });
    expect(rebaseBranchSource({ ...gitlab, headRepository: 'service-bot/web', serviceFork: 'service-bot/web', headRef: 'other' }, BRANCH)).toMatchObject({ kind: 'refuse', code: 'rebase_unsupported' });
  });
});
