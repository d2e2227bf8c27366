import { formatTarget, parseModelConfiguration, type ModelConfiguration } from '../config/model-configuration';
import { CONTAINER_STATION_KEYS } from '../config/model-policy-keys';
import { resolveModelTarget } from '../config/model-target-resolver';
import { resolveStages, unreadyContainerStages } from '../containers/container-readiness';
import { loadServiceConfig } from '../config/service-config';
import type { ResolvedTarget } from '../models/model-client';
import { podman, PodmanSetupError, resolvePodmanAccount } from '../containers/podman-account';
import { runLocalContainerStation } from './local-station-run';

/** One step of `service smoke-test`: passed, failed, or not available in this build (which fails the run too). */
export interface SmokeStep {
  name: string;
  status: 'passed' | 'failed' | 'unavailable';
  detail: string;
}

/** Step 2: rootless podman runs and the task image is there. */
export async function checkRootlessContainer(image: string): Promise<SmokeStep> {
  const name = 'rootless container with a mocked git tree';
  let account;
  try {
    account = resolvePodmanAccount();
  } catch (error) {
    if (error instanceof PodmanSetupError) return { name, status: 'failed', detail: error.message };
    throw error;
  }
  const version = await podman(account, ['version', '--format', '{{.Client.Version}}'], 30_000);
  if (version.code !== 0) return { name, status: 'failed', detail: `podman does not run as ${account.name}: ${version.stderr.trim() || 'is it installed? run scripts/setup-rootless-podman.sh'}` };
  const run = await podman(account, ['run', '--rm', '--runtime', 'runc', '--network', 'none', image, 'sh', '-c', 'git --version && node --version && id -u'], 120_000);
  if (run.code !== 0) return { name, status: 'failed', detail: `podman run ${image} failed: ${run.stderr.trim().split('\n').pop()} (build the image with scripts/build-offline-image.sh ${image})` };
  const [git, node] = run.stdout.trim().split('\n');
  return { name, status: 'passed', detail: `podman ${version.stdout.trim()} as ${account.name} (${account.switchUser ? 'rootless account of a root worker' : 'rootless'}), image ${image}: ${git}, node ${node}` };
}

/** The deployment's model for implementation work (`implement_work`, no project policy), for `--configured-model`. */
export function configuredImplementationModel(env: NodeJS.ProcessEnv): ResolvedTarget | string {
  const parsed = parseModelConfiguration(env);
  if (!parsed.config) return `the model configuration is invalid: ${parsed.problems.join('; ')}`;
  const resolution = resolveModelTarget(parsed.config, 'implement_work', {}, { runsIn: 'container' });
  return resolution.ok ? resolution : resolution.problem;
}

/**
 * Step 3: the real agent in a container writes the requested verification file, answered by the model simulator or,
 * with `useConfiguredModel`, by the deployment's implementation model through the proxy.
 */
export async function checkAgentWritesVerificationFile(env: NodeJS.ProcessEnv = process.env, useConfiguredModel = false): Promise<SmokeStep> {
  const name = `agent in a container writes the verification file (${useConfiguredModel ? 'configured model' : 'model simulator'})`;
  const parsed = loadServiceConfig(env);
  if (!parsed.config) return { name, status: 'failed', detail: `configuration: ${parsed.problems.join('; ')}` };
  const model = useConfiguredModel ? configuredImplementationModel(env) : undefined;
  if (typeof model === 'string') return { name, status: 'failed', detail: model };
  const file = '.service/smoke/verification.txt';
  try {
    const run = await runLocalContainerStation({ container: { ...parsed.config.container, timeoutSeconds: Math.min(parsed.config.container.timeoutSeconds, 300) }, verificationFile: file, model });
    if (!run.verificationText?.trim()) return { name, status: 'failed', detail: `the agent finished (${run.result.outcome}) without writing ${file}` };
    const firstTool = run.timings.launch_to_first_tool_call_ms === null ? '' : `, first tool call ${run.timings.launch_to_first_tool_call_ms} ms after launch`;
    return { name, status: 'passed', detail: `${file}: "${run.verificationText.trim().slice(0, 80)}" (container ${run.timings.agent_ms} ms${firstTool})` };
  } catch (error) {
    return { name, status: 'failed', detail: (error as Error).message.slice(0, 500) };
  }
}

const CONTAINER_MODELS_STEP = 'model targets of the container stages';

/**
 * Step 4 (pure apart from `env`): whether every container stage's deployment target (no project policy: the smoke
 * test reads no tracker) can be served by the model proxy with this environment, the check the station makes before
 * its container starts. Failed lists the stages that cannot, with the reason.
 */
export function containerStageModels(config: ModelConfiguration, env: NodeJS.ProcessEnv): SmokeStep {
  const resolutions = resolveStages(config).filter((r) => CONTAINER_STATION_KEYS.includes(r.key));
  const unready = unreadyContainerStages(resolutions, env);
  if (unready) return { name: CONTAINER_MODELS_STEP, status: 'failed', detail: `cannot run in a container: ${unready}` };
  const targets = [...new Set(resolutions.flatMap((r) => (r.ok ? [`${formatTarget(r.target)} (${r.connection.backend})`] : [])))];
  return { name: CONTAINER_MODELS_STEP, status: 'passed', detail: `all ${resolutions.length} can run in a container on ${targets.join(', ')} (deployment targets; a project's own: service get-config <PROJECT> --models)` };
}

/**
 * The same from the environment. Undefined when no model is configured: the rest of the smoke test needs none (the
 * model simulator stands in), so that is no failure of this machine.
 */
export function checkContainerStageModels(env: NodeJS.ProcessEnv = process.env): SmokeStep | undefined {
  const parsed = parseModelConfiguration(env);
  if (!parsed.config) return { name: CONTAINER_MODELS_STEP, status: 'failed', detail: `the model configuration is invalid, so no container stage can run: ${parsed.problems.join('; ')}` };
  return parsed.config.mode === 'none' ? undefined : containerStageModels(parsed.config, env);
}
