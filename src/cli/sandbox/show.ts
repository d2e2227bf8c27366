import { Args, Command, Flags } from '@oclif/core';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';
import { ticketViewText } from '../../sandbox/ticket-view-text';

export default class SandboxShow extends Command {
  static override description = 'Show a sandbox ticket as a person reads it: its comments as text, its labels, and its pull requests with their diffs (read from the simulators\' REST APIs).';
  static override examples = ['<%= config.bin %> sandbox show SBX-1', '<%= config.bin %> sandbox show SBX-1 --no-diff'];
  static override args = { key: Args.string({ description: 'ticket key', required: true }) };
  static override flags = {
    ...sandboxFlags,
    diff: Flags.boolean({ description: 'print each pull request\'s diff (--no-diff: only its title, state and link)', default: true, allowNo: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxShow);
    await actInSandbox(this, flags, async (person) => ticketViewText(await person.readTicket(args.key, { diffs: flags.diff })));
  }
}
