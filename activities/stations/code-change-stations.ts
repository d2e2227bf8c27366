import type { ModelConfiguration } from '../../src/config/model-configuration';
import type { ModelClient } from '../../src/models/model-client';
import type { ServiceConfig } from '../../src/config/service-config';
import type { GitRemotes } from '../../src/providers/git-remote-types';
import { resolvePodmanAccount } from '../../src/containers/podman-account';
import type { Tracing } from '../../src/tracing/start-tracing';
import type { Logger } from '../../src/logging/logger';
import type { ProjectPropertiesPort } from '../../src/config/project-properties-port';
import type { StationActivity } from '../../workflows/runtime/station-types';
import type { RepositoriesReader } from './planning/repositories';
import { containerModelResolver } from './code-change/container-model-resolver';
import { createCiStations, type CiScmhost } from './code-change/ci-stations';
import type { GitLabRepositoryClient } from '../../src/providers/gitlab/gitlab-repositories';
import { withGitLabForks } from '../../src/providers/gitlab/gitlab-fork';
import { githubForkOf, type ForkLookupClient } from '../../src/providers/scmhost/github-fork-mode';
import { createReviewStations, type ReviewScmhost } from './code-change/review-stations';
import { createDescriptionSync } from './code-change/pull-request-description-sync';
import { createCodeReviewStation } from './code-change/code-review-station';
import { createRebaseStation } from './code-change/rebase-station';
import { createCompletionStations } from './code-change/completion-stations';
import { createImplementationStations } from './code-change/implementation-stations';
import { createPullRequestStations, type CodeChangeTracker } from './code-change/pull-request-stations';

export interface CodeChangeStationDeps {
  config: Pick<ServiceConfig, 'container' | 'autoReview' | 'scmhost' | 'ci'>;
  modelConfig: ModelConfiguration;
  models: ModelClient;
  /** Without a tracker the host stations (status moves, pull requests, completion) are not available. */
  tracker?: CodeChangeTracker;
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  remotes: GitRemotes;
  /** The source-host API (check runs, pull requests); without it the CI stations are not available. */
  scmhost?: () => Promise<CiScmhost & ReviewScmhost & ForkLookupClient>;
  /** The GitLab projects of the repository registry (merge requests and pipelines). */
  gitlab?: (repository: string) => GitLabRepositoryClient | undefined;
  /** service_ci_fix_attempts_total */
  onCiFixAttempt?: () => void;
  logger: Logger;
  skillsRoot?: string;
  /** LLM tracing of the container agents' model calls (through the model proxy). */
  tracing?: Tracing;
  /** The project's repository configuration: where analyze_bug looks (without it and a tracker, it is not available). */
  repositories?: RepositoriesReader;
}

/**
 * The code-change stations (issue "From tasks to a merged pull request"): the container stations that change code in
 * the repository the task router chose, and the host stations that move tracker statuses, open pull requests and
 * complete the feature. The podman account is looked up when a container station first runs, so a worker on a
 * machine without podman still starts, and a ticket that reaches one of these blocks with the station's error.
 */
export function createCodeChangeStations(deps: CodeChangeStationDeps): Record<string, StationActivity> {
  // Fork mode (GitLab, and GitHub repositories of SCMHOST_FORK_REPOS): a later visit continues the ticket branch on
  // the service account's fork.
  const forks = withGitLabForks(deps.remotes, deps.gitlab);
  const githubFork = deps.scmhost ? githubForkOf(deps.scmhost, deps.config.scmhost.botLogin) : undefined;
  const containerDeps = {
    config: deps.config,
    account: () => resolvePodmanAccount(),
    remotes: forks.remotes,
    forkOf: async (repository: string) => (await forks.forkOf(repository)) ?? (deps.gitlab?.(repository) ? undefined : await githubFork?.(repository)),
    resolveModel: containerModelResolver({ modelConfig: deps.modelConfig, properties: deps.properties }),
    logger: deps.logger.child({ component: 'code-change' }),
    skillsRoot: deps.skillsRoot,
    tracing: deps.tracing,
  };
  const host = deps.tracker ? {
    ...createPullRequestStations({
      tracker: deps.tracker, remotes: deps.remotes, draftRepos: deps.config.scmhost.draftRepos, workDir: deps.config.container.workDir,
      models: deps.models, modelConfig: deps.modelConfig, properties: deps.properties, skillsRoot: deps.skillsRoot,
    }),
    ...createCompletionStations({ tracker: deps.tracker }),
  } : {};
  const modelStep = { models: deps.models, modelConfig: deps.modelConfig, properties: deps.properties, skillsRoot: deps.skillsRoot };
  const hosts = { scmhost: deps.scmhost, gitlab: deps.gitlab };
  const syncDescription = deps.scmhost || deps.gitlab ? createDescriptionSync({ ...modelStep, ...hosts }) : undefined;
  const review = deps.scmhost || deps.gitlab ? createReviewStations({
    ...hosts, botLogin: deps.config.scmhost.botLogin, container: containerDeps, syncDescription,
    models: deps.models, modelConfig: deps.modelConfig, properties: deps.properties, skillsRoot: deps.skillsRoot,
  }) : {};
  const reviewAndCi = deps.scmhost || deps.gitlab ? {
    ...createCodeReviewStation(containerDeps),
    ...createRebaseStation({ ...hosts, remotes: deps.remotes, workDir: deps.config.container.workDir, container: containerDeps }),
    ...createCiStations({ ...hosts, ignoredChecks: deps.config.ci.ignoredChecks, maxFixAttempts: deps.config.ci.maxFixAttempts, container: containerDeps, onFixAttempt: deps.onCiFixAttempt, syncDescription }),
    ...review,
  } : {};
  return { ...createImplementationStations({ ...containerDeps, tracker: deps.tracker, repositories: deps.repositories }), ...host, ...reviewAndCi };
}
