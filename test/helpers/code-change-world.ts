import { isReadOnlyTask } from '../../src/sandbox/model-simulator/sandbox-agent';
import { codeChangeResponder, type CodeChangeModelPlan } from './code-change-model';
import { startWorld, WORLD_BOT, type World } from './start-world';

export const CODE_CHANGE_OPERATOR_TOKEN = 'code-change-operator-token';

/**
 * The world of the code-change flow (its tests and its benchmark): the tracker, GitHub and GitLab simulators with real
 * git repositories, a model whose agents make real changes (`plan`, which a test may change as it goes), rootless
 * podman, and the real worker and gateway. The helpers read what a user would look at.
 */
export interface CodeChangeWorld extends World {
  plan: CodeChangeModelPlan;
}

export async function startCodeChangeWorld(temporalAddress: string, options: { repositories: string[]; gitlabProjects?: string[]; projectKey?: string; taskQueue: string; env?: NodeJS.ProcessEnv }): Promise<CodeChangeWorld> {
  const gitlabProjects = options.gitlabProjects ?? [];
  const allRepositories = [...options.repositories, ...gitlabProjects];
  const plan: CodeChangeModelPlan = {
    repositories: allRepositories,
    agentOutputs: {},
    codeChange: (task) => {
      const repo = allRepositories.find((r) => task.includes(r));
      if (!repo || isReadOnlyTask(task)) return undefined;
      return { path: 'src/feature.txt', content: `feature for ${repo}\n${task.split('\n')[0]}\n` };
    },
  };
  const world = await startWorld({
    name: 'feature-code-change',
    temporalAddress,
    // Ticket keys name workflow ids on a shared Temporal server: each world gets its own project, or a ticket of one
    // test would meet the completed workflow of another's ticket with the same key.
    tracker: { projects: [options.projectKey ?? 'FD'], repos: allRepositories },
    scm: { github: options.repositories, gitlab: gitlabProjects },
    model: { respond: codeChangeResponder(plan), name: 'code-change' },
    seedRepo: (repo) => ({ 'APP.md': `# ${repo} application\n` }),
    containers: true,
    operatorToken: CODE_CHANGE_OPERATOR_TOKEN,
    env: {
      SERVICE_TASK_QUEUE: options.taskQueue,
      EFFECT_OPERATOR_TOKEN: CODE_CHANGE_OPERATOR_TOKEN,
      SCMHOST_KNOWN_REPOS: options.repositories.join(','),
      SCMHOST_BOT_LOGIN: WORLD_BOT,
      SERVICE_EFFECT_TIMEOUT_SECONDS: '15',
      SERVICE_POLL_INTERVAL_SECONDS: '0',
      CONTAINER_TIMEOUT: '180',
      AUTO_REVIEW_MAX_RETRIES: '0',
      CI_MAX_FIX_ATTEMPTS: '3',
      ...options.env,
    },
  });
  return { ...world, plan };
}
