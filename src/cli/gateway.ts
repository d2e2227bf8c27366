import { Command } from '@oclif/core';
import { reportConfigurationError, startupConfig } from '../config/startup-config';
import { startGateway } from '../gateway/server';
import { runUntilSignal } from '../process/run-until-signal';

export default class GatewayCommand extends Command {
  static override description = 'Run the HTTP gateway (webhooks, /api/v1, /metrics; port 8000) against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE';

  async run(): Promise<void> {
    await this.parse(GatewayCommand);
    try {
      const { config, logger } = startupConfig();
      const gateway = await startGateway(config, logger);
      this.log(`gateway listening on ${gateway.url} (API ${gateway.url}/api/v1, metrics ${gateway.url}/metrics)`);
      await runUntilSignal(() => gateway.stop(), (l) => this.log(l));
    } catch (error) {
      const code = reportConfigurationError(error);
      if (code !== undefined) this.exit(code);
      throw error;
    }
  }
}
