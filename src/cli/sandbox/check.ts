import { Args, Command, Flags } from '@oclif/core';
import { changeRequestName } from '../../sandbox/sandbox-person';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';

const CONCLUSIONS = ['success', 'failure', 'neutral', 'cancelled', 'skipped', 'timed_out', 'action_required'];

export default class SandboxCheck extends Command {
  static override description = 'Report a finished CI check on the head of the ticket\'s pull request, as a CI app would (a failure makes the service try to fix it).';
  static override examples = ['<%= config.bin %> sandbox check SBX-1 --name build --conclusion failure', '<%= config.bin %> sandbox check SBX-1 --name build'];
  static override args = { key: Args.string({ description: 'ticket key', required: true }) };
  static override flags = {
    ...sandboxFlags,
    name: Flags.string({ description: 'the check\'s name', default: 'build' }),
    conclusion: Flags.string({ description: 'how it ended', options: CONCLUSIONS, default: 'success' }),
    summary: Flags.string({ description: 'the check\'s output summary (what a fix reads)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxCheck);
    await actInSandbox(this, flags, async (person) => {
      const { number, sha } = await person.reportCheck(args.key, { name: flags.name, conclusion: flags.conclusion, summary: flags.summary });
      return `${args.key}: check "${flags.name}" ${flags.conclusion} on ${changeRequestName(args.key, number)} (head ${sha.slice(0, 7)})`;
    });
  }
}
