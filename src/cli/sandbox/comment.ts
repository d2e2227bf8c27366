import { Args, Command } from '@oclif/core';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';

export default class SandboxComment extends Command {
  static override description = 'Comment on a sandbox ticket as a person would (e.g. a question "? ...", or a command "/service approve"). Prints the comment id.';
  static override examples = ['<%= config.bin %> sandbox comment SBX-1 "Please keep it small"'];
  static override args = {
    key: Args.string({ description: 'ticket key', required: true }),
    text: Args.string({ description: 'comment text', required: true }),
  };
  static override flags = sandboxFlags;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxComment);
    await actInSandbox(this, flags, (person) => person.comment(args.key, args.text));
  }
}
