import { Args, Command, Flags } from '@oclif/core';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';
import { SANDBOX_REPOSITORY } from '../../sandbox/sandbox-settings';

export default class SandboxCommitMain extends Command {
  static override description = [
    `Push a commit to the default branch of ${SANDBOX_REPOSITORY} as a person working on main would: one file, written with the text given.`,
    'Write a file a ticket\'s pull request changes too, and the source host reports the conflict (mergeable false, a merge answered 405), as GitHub does.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> sandbox commit-main SANDBOX_CHANGES/SBX-1.md "Edited on main meanwhile"',
    '<%= config.bin %> sandbox commit-main docs/notes.md "A note" --message "Add a note" --as sam@example.com',
  ];
  static override args = {
    path: Args.string({ description: 'the file\'s path in the repository', required: true }),
    text: Args.string({ description: 'the file\'s new content', required: true }),
  };
  static override flags = { ...sandboxFlags, message: Flags.string({ description: 'the commit message (default "Edit <path>")' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxCommitMain);
    await actInSandbox(this, flags, async (person) => {
      const { sha, branch } = await person.commitToMain(args.path, args.text, flags.message);
      return `${SANDBOX_REPOSITORY}: pushed ${sha.slice(0, 7)} to ${branch} (${args.path}) as ${person.identity.login}`;
    });
  }
}
