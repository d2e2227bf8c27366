import { Args, Command, Flags } from '@oclif/core';
import { actInSandbox, sandboxFlags } from '../../sandbox/sandbox-command';
import { SANDBOX_GITLAB_PROJECT, SANDBOX_GITLAB_TRACKER_PROJECT, SANDBOX_PROJECT, SANDBOX_REPOSITORY } from '../../sandbox/sandbox-settings';
import { MANAGED_LABEL } from '../../../workflows/vocabulary/labels';

export default class SandboxCreateTicket extends Command {
  static override description = `Create a ticket in the sandbox's tracker as a person would (project ${SANDBOX_PROJECT}, delivered to ${SANDBOX_REPOSITORY} on the GitHub simulator, or ${SANDBOX_GITLAB_TRACKER_PROJECT}, delivered to ${SANDBOX_GITLAB_PROJECT} on the GitLab simulator); managed by the service unless --unmanaged. Prints its key.`;
  static override examples = [
    '<%= config.bin %> sandbox create-ticket "Add a dark mode"',
    '<%= config.bin %> sandbox create-ticket "Crash on save" --type Bug --description "Steps: ..."',
    `<%= config.bin %> sandbox create-ticket "Export as CSV" --project ${SANDBOX_GITLAB_TRACKER_PROJECT}`,
  ];
  static override args = { summary: Args.string({ description: 'summary', default: 'Try me' }) };
  static override flags = {
    ...sandboxFlags,
    type: Flags.string({ description: 'issue type (Feature, Story, Bug, Epic, Task)', default: 'Feature' }),
    description: Flags.string({ description: 'description (plain text)' }),
    label: Flags.string({ description: 'another label (repeatable)', multiple: true, default: [] }),
    project: Flags.string({ description: `tracker project: ${SANDBOX_PROJECT} (GitHub) or ${SANDBOX_GITLAB_TRACKER_PROJECT} (GitLab)`, options: [SANDBOX_PROJECT, SANDBOX_GITLAB_TRACKER_PROJECT], default: SANDBOX_PROJECT }),
    unmanaged: Flags.boolean({ description: 'without the service:managed label (the service ignores it until the label is added)', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(SandboxCreateTicket);
    const labels = [...(flags.unmanaged ? [] : [MANAGED_LABEL]), ...flags.label];
    await actInSandbox(this, flags, (person) => person.createTicket({ summary: args.summary, type: flags.type, description: flags.description, labels, project: flags.project }));
  }
}
