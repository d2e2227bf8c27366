import type { ProjectPropertiesPort } from './project-properties-port';

/**
 * Proposal review (SPEC 2.8, REFERENCE "Source host conventions"): with `service.prd_proposals_repo` set, the PRD and
 * the spec are reviewed as pull requests on that repository, under `service.prd_proposals_path` (default
 * `proposals`). Where project configuration is not required, PRD_PROPOSALS_REPO and PRD_PROPOSALS_PATH stand in.
 */
export interface ProposalSettings {
  repository: string;
  /** Base directory inside the repository, no leading or trailing "/". */
  path: string;
  source: 'project_properties' | 'environment';
}

export const DEFAULT_PROPOSALS_PATH = 'proposals';

export class ProposalSettingsError extends Error {
  override readonly name = 'ProposalSettingsError';
}

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

function checkedRepository(value: unknown, where: string): string {
  if (typeof value !== 'string' || !REPO.test(value.trim())) {
    throw new ProposalSettingsError(`${where} must be an owner/repo string, got ${JSON.stringify(value)?.slice(0, 100)}`);
  }
  return value.trim();
}

function checkedPath(value: unknown, where: string): string {
  if (value === undefined || value === null || value === '') return DEFAULT_PROPOSALS_PATH;
  if (typeof value !== 'string') throw new ProposalSettingsError(`${where} must be a string path, got ${JSON.stringify(value)?.slice(0, 100)}`);
  const path = value.trim().replace(/\/+$/, '');
  if (path === '') return DEFAULT_PROPOSALS_PATH;
  if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '')) {
    throw new ProposalSettingsError(`${where} must be a path inside the repository (no leading "/", no "..", no empty parts), got "${path}"`);
  }
  return path;
}

export interface ProposalSettingsSource {
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  requireProjectConfig: boolean;
  /** PRD_PROPOSALS_REPO and PRD_PROPOSALS_PATH. */
  fallback: { repo?: string; path?: string };
}

/** The project's proposal review settings, or undefined when proposal review is off. Read fresh on every call. */
export async function readProposalSettings(source: ProposalSettingsSource, projectKey: string): Promise<ProposalSettings | undefined> {
  if (!source.requireProjectConfig) {
    if (!source.fallback.repo) return undefined;
    return { repository: checkedRepository(source.fallback.repo, 'PRD_PROPOSALS_REPO'), path: checkedPath(source.fallback.path, 'PRD_PROPOSALS_PATH'), source: 'environment' };
  }
  if (!source.properties) return undefined;
  const [repo, path] = await Promise.all([
    source.properties.getProjectProperty(projectKey, 'service.prd_proposals_repo'),
    source.properties.getProjectProperty(projectKey, 'service.prd_proposals_path'),
  ]);
  if (repo === undefined || repo === null || repo === '') return undefined;
  return {
    repository: checkedRepository(repo, `service.prd_proposals_repo of project ${projectKey}`),
    path: checkedPath(path, `service.prd_proposals_path of project ${projectKey}`),
    source: 'project_properties',
  };
}
