import { z } from 'zod';
import type { ProjectPropertiesPort } from '../src/config/project-properties-port';
import { redactSecrets } from '../src/redaction/redact-secrets';
import type { ProjectRepositoriesCheck } from '../workflows/project-config-types';

export interface ProjectConfigActivityDeps {
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  requireProjectConfig: boolean;
  /** SCMHOST_KNOWN_REPOS and SCMHOST_DEFAULT_REPO: the fallback when project configuration is not required. */
  fallbackRepositories: string[];
  fallbackDefaultRepo?: string;
}

const repoName = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/repo');
const reposProperty = z.array(z.union([repoName, z.object({ name: repoName, draft: z.boolean().optional() })])).min(1, 'must list at least one repository');

/**
 * SPEC 2.8: a ticket's repositories come from the project properties `service.repos` and `service.default_repo`
 * (or, where project configuration is not required, from the environment). What is missing or malformed is named so
 * the setup-instruction comment can say exactly what to fix.
 */
export function createProjectConfigActivities(deps: ProjectConfigActivityDeps) {
  return {
    async checkProjectRepositories(input: { project_key: string }): Promise<ProjectRepositoriesCheck> {
      const { project_key } = z.object({ project_key: z.string().min(1) }).parse(input);
      if (!deps.requireProjectConfig) {
        const repositories = [...new Set([...deps.fallbackRepositories, ...(deps.fallbackDefaultRepo ? [deps.fallbackDefaultRepo] : [])])];
        return repositories.length > 0
          ? { status: 'configured', source: 'environment', repositories, default_repo: deps.fallbackDefaultRepo ?? null }
          : { status: 'missing', missing: ['SCMHOST_KNOWN_REPOS'], problems: [], require_project_config: false };
      }
      if (!deps.properties) return { status: 'unchecked', reason: 'the tracker is not configured, so project properties cannot be read' };
      const [repos, defaultRepo] = await Promise.all([
        deps.properties.getProjectProperty(project_key, 'service.repos'),
        deps.properties.getProjectProperty(project_key, 'service.default_repo'),
      ]);
      if (repos === undefined) return { status: 'missing', missing: ['service.repos'], problems: [], require_project_config: true };
      const parsed = reposProperty.safeParse(repos);
      const problems: string[] = [];
      if (!parsed.success) problems.push(`service.repos ${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'} ${i.message}`).join('; ')}`);
      const defaultParsed = defaultRepo === undefined ? undefined : repoName.safeParse(defaultRepo);
      if (defaultParsed && !defaultParsed.success) problems.push(`service.default_repo must be an owner/repo string, got ${redactSecrets(JSON.stringify(defaultRepo)).slice(0, 100)}`);
      if (!parsed.success || problems.length > 0) return { status: 'missing', missing: [], problems, require_project_config: true };
      return {
        status: 'configured',
        source: 'project_properties',
        repositories: parsed.data.map((item) => (typeof item === 'string' ? item : item.name)),
        default_repo: defaultParsed?.success ? defaultParsed.data : null,
      };
    },
  };
}

export type ProjectConfigActivities = ReturnType<typeof createProjectConfigActivities>;
