import { Args, Command } from '@oclif/core';
import { changeRequestName } from '../../sandbox/sandbox-person';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';

export default class SandboxMerge extends Command {
  static override description = 'Merge the ticket\'s pull request on the simulated source host, as a person would; the service then closes the tasks, epics and the feature.';
  static override examples = ['<%= config.bin %> sandbox merge SBX-1'];
  static override args = { key: Args.string({ description: 'ticket key', required: true }) };
  static override flags = { ...sandboxFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxMerge);
    await actInSandbox(this, flags, async (person) => `${args.key}: merged ${changeRequestName(args.key, await person.mergePullRequest(args.key))}`);
  }
}
