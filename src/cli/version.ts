import { Command } from '@oclif/core';

export default class Version extends Command {
  static override description = 'Print the installed version of the service';

  async run(): Promise<void> {
    this.log(`${this.config.name} v${this.config.version}`);
  }
}
