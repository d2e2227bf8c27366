import { describe, expect, it } from 'vitest';
import { readProposalSettings } from '../../../src/config/proposal-settings';

const properties = (values: Record<string, unknown>) => ({ getProjectProperty: async (_project: string, key: string) => values[key] });

describe('proposal review settings (SPEC 2.8)', () => {
  it('is off without service.prd_proposals_repo, on with it, under proposals/ unless a path is set', async () => {
    expect(await readProposalSettings({ properties: properties({}), requireProjectConfig: true, fallback: {} }, 'P')).toBeUndefined();
    expect(await readProposalSettings({ properties: properties({ 'service.prd_proposals_repo': 'acme/proposals' }), requireProjectConfig: true, fallback: {} }, 'P'))
      .toEqual({ repository: 'acme/proposals', path: 'proposals', source: 'project_properties' });
    expect(await readProposalSettings({ properties: properties({ 'service.prd_proposals_repo': 'acme/proposals', 'service.prd_proposals_path': 'docs/rfcs/' }), requireProjectConfig: true, fallback: {} }, 'P'))
      .toMatchObject({ path: 'docs/rfcs' });
  });

  it('uses PRD_PROPOSALS_REPO and PRD_PROPOSALS_PATH only where project configuration is not required', async () => {
    const fallback = { repo: 'acme/env-proposals', path: 'rfcs' };
    expect(await readProposalSettings({ properties: properties({}), requireProjectConfig: false, fallback }, 'P')).toEqual({ repository: 'acme/env-proposals', path: 'rfcs', source: 'environment' });
    expect(await readProposalSettings({ properties: properties({}), requireProjectConfig: true, fallback }, 'P')).toBeUndefined();
  });

  it.each([
    [{ 'service.prd_proposals_repo': 'proposals' }, 'service.prd_proposals_repo of project P must be an owner/repo string, got "proposals"'],
    [{ 'service.prd_proposals_repo': 'acme/p', 'service.prd_proposals_path': '../up' }, 'service.prd_proposals_path of project P must be a path inside the repository'],
    [{ 'service.prd_proposals_repo': 'acme/p', 'service.prd_proposals_path': 7 }, 'service.prd_proposals_path of project P must be a string path, got 7'],
  ])('names the malformed property: %j', async (values, message) => {
    await expect(readProposalSettings({ properties: properties(values), requireProjectConfig: true, fallback: {} }, 'P')).rejects.toThrow(message);
  });
});
