import { Command } from '@oclif/core';
import { ensureTemporalCli } from '../temporal/temporal-cli-locator';

export default class TemporalCliCommand extends Command {
  static override description = 'Find the Temporal CLI (TEMPORAL_CLI_PATH, .tools/bin, PATH) or build it once with Go; prints its path';

  async run(): Promise<void> {
    await this.parse(TemporalCliCommand);
    const path = await ensureTemporalCli({ report: (line) => this.logToStderr(line) });
    this.log(path);
  }
}
