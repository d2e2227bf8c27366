import type { ProposalDeps } from './proposal-publisher';
import type { GitRemotes } from '../../../src/providers/git-remote-types';
import type { ProjectPropertiesPort } from '../../../src/config/project-properties-port';
import type { ScmhostClient } from '../../../src/providers/scmhost/scmhost-client';
import { readProposalSettings } from '../../../src/config/proposal-settings';
import type { ServiceConfig } from '../../../src/config/service-config';

/** The worker's wiring of proposal review: settings from the project properties (or the environment), git on the host. */
export function proposalDeps(
  config: Pick<ServiceConfig, 'requireProjectConfig' | 'prdProposals' | 'container'>,
  properties: Pick<ProjectPropertiesPort, 'getProjectProperty'> | undefined,
  remotes: GitRemotes,
  scmhost: (() => ScmhostClient | Promise<ScmhostClient>) | undefined,
): ProposalDeps {
  return {
    settings: (projectKey) => readProposalSettings({ properties, requireProjectConfig: config.requireProjectConfig, fallback: config.prdProposals }, projectKey),
    remotes,
    workDir: config.container.workDir,
    ...(scmhost ? { scmhost: async () => scmhost() } : {}),
  };
}
