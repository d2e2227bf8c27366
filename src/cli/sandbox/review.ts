import { Args, Command, Flags } from '@oclif/core';
import { changeRequestName } from '../../sandbox/sandbox-person';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';

export default class SandboxReview extends Command {
  static override description = 'Request changes on the ticket\'s pull request as a reviewer would, optionally as a comment on one line of a file; the service changes the code, pushes and answers.';
  static override examples = [
    '<%= config.bin %> sandbox review SBX-1 "Please log the export size"',
    '<%= config.bin %> sandbox review SBX-1 "Name the rows exported" --file SANDBOX_CHANGES/SBX-1.md --line 1',
  ];
  static override args = {
    key: Args.string({ description: 'ticket key', required: true }),
    text: Args.string({ description: 'what to change', required: true }),
  };
  static override flags = {
    ...sandboxFlags,
    file: Flags.string({ description: 'a file of the pull request to comment on (the text becomes a line comment)', dependsOn: ['line'] }),
    line: Flags.integer({ description: 'the line of --file', min: 1, dependsOn: ['file'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxReview);
    await actInSandbox(this, flags, async (person) => {
      const line = flags.file && flags.line ? { path: flags.file, line: flags.line, body: args.text } : undefined;
      const number = await person.requestChanges(args.key, { body: line ? 'Please see the comment on the code.' : args.text, line });
      return `${args.key}: requested changes on ${changeRequestName(args.key, number)}${line ? ` (${line.path}:${line.line})` : ''}`;
    });
  }
}
