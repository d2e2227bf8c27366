import { Command, Flags } from '@oclif/core';
import { OPERATOR_ENVIRONMENT_HELP } from '../temporal/running-dev';
import { announceRunningStack } from '../temporal/which-stack';
import { loadServiceConfig } from '../config/service-config';
import { checkAgentWritesVerificationFile, checkContainerStageModels, checkRootlessContainer, type SmokeStep } from '../smoke/smoke-checks';
import { checkTwoNodeGraphResumes } from '../smoke/graph-resume-check';

/**
 * `service smoke-test` (SPEC 4.8): an offline check of this machine in a disposable workspace. Each step prints one
 * line; exit 0 only when every step passed. Nothing here needs a tracker, a source host or a model: a mocked git
 * tree and the model simulator stand in for them. When a model is configured, a last step says whether every
 * container stage's target can run in a container.
 */
export default class SmokeTest extends Command {
  static override description = `Offline check: a 2-node graph on Temporal, a rootless container with a mocked git tree, the real agent writing a verification file, and (when a model is configured) whether every container stage's model target can run in a container. ${OPERATOR_ENVIRONMENT_HELP}`;

  static override flags = {
    'data-dir': Flags.string({ description: 'the data folder of the running `service dev` to talk to (needed only when more than one runs)' }),
    'configured-model': Flags.boolean({ description: 'answer the agent with the configured implementation model (implement_work) instead of the model simulator', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SmokeTest);
    if (!announceRunningStack(process.env, flags['data-dir'])) return this.exit(1);
    const image = loadServiceConfig(process.env).config?.container.image ?? 'service-dev:latest';
    const steps: SmokeStep[] = [];
    const report = (step: SmokeStep) => {
      steps.push(step);
      const mark = step.status === 'passed' ? 'ok  ' : step.status === 'unavailable' ? 'n/a ' : 'FAIL';
      this.log(`${mark} ${step.name}: ${step.detail}`);
    };
    report(await checkTwoNodeGraphResumes());
    const container = await checkRootlessContainer(image);
    report(container);
    if (container.status === 'passed') report(await checkAgentWritesVerificationFile(process.env, flags['configured-model']));
    else report({ name: 'agent in a container writes the verification file', status: 'failed', detail: 'skipped: no working container runtime (see above)' });
    const models = checkContainerStageModels(process.env);
    if (models) report(models);
    const failed = steps.filter((step) => step.status !== 'passed').length;
    this.log(failed === 0 ? 'smoke test passed' : `smoke test failed: ${failed} of ${steps.length} steps did not pass`);
    if (failed > 0) this.exit(1);
  }
}
