import { Args, Command, Flags } from '@oclif/core';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';

export default class SandboxLabel extends Command {
  static override description = 'Add (or with --remove take off) a label on a sandbox ticket as a person would, e.g. service:retry on a blocked ticket.';
  static override examples = ['<%= config.bin %> sandbox label SBX-1 service:retry', '<%= config.bin %> sandbox label SBX-1 service:yolo --remove'];
  static override args = {
    key: Args.string({ description: 'ticket key', required: true }),
    label: Args.string({ description: 'label', required: true }),
  };
  static override flags = { ...sandboxFlags, remove: Flags.boolean({ description: 'remove the label instead', default: false }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxLabel);
    await actInSandbox(this, flags, async (person) => {
      await person.label(args.key, args.label, flags.remove);
      return `${args.key}: ${flags.remove ? 'removed' : 'added'} ${args.label}`;
    });
  }
}
