import { Command } from '@oclif/core';
import { reportConfigurationError, startupConfig } from '../config/startup-config';
import { startWorker } from '../worker';
import { runUntilSignal } from '../process/run-until-signal';

export default class WorkerCommand extends Command {
  static override description = 'Run the worker on the host (ticket workflows; metrics on port 8001) against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE';

  async run(): Promise<void> {
    await this.parse(WorkerCommand);
    try {
      const { config, logger, models } = startupConfig();
      const worker = await startWorker(config, logger, { models });
      this.log(`worker polling task queue ${config.temporal.taskQueue} on ${config.temporal.address} (namespace ${config.temporal.namespace}); metrics at ${worker.metricsUrl}`);
      await Promise.race([runUntilSignal(() => worker.stop(), (l) => this.log(l)), worker.done]);
    } catch (error) {
      const code = reportConfigurationError(error);
      if (code !== undefined) this.exit(code);
      throw error;
    }
  }
}
