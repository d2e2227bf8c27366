import { Args, Command, Flags } from '@oclif/core';
import { changeRequestName } from '../../sandbox/sandbox-person';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';
import { TRIGGER, TRIGGER_LABEL } from '../../../workflows/vocabulary/command-words';

export default class SandboxApprove extends Command {
  static override description = [
    'Approve as a person would: by default the comment "/service approve" on the ticket (plan and task approval gates);',
    'with --pr an approving review of the ticket\'s pull request on the source host (the human review gate).',
    'Artifact gates (PRD, spec) are approved with their label: service sandbox label SBX-1 service:prd-approved.',
  ].join(' ');
  static override examples = ['<%= config.bin %> sandbox approve SBX-1', '<%= config.bin %> sandbox approve SBX-1 --pr'];
  static override args = { key: Args.string({ description: 'ticket key', required: true }) };
  static override flags = { ...sandboxFlags, pr: Flags.boolean({ description: 'approve the pull request instead', default: false }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxApprove);
    await actInSandbox(this, flags, async (person) => {
      if (flags.pr) return `${args.key}: approved ${changeRequestName(args.key, await person.approvePullRequest(args.key))}`;
      return `${args.key}: commented /service approve (comment ${await person.comment(args.key, TRIGGER_LABEL[TRIGGER.approve])})`;
    });
  }
}
