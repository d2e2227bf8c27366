import { Args, Command, Flags } from '@oclif/core';
import { planProjectSetup, type Mutation } from '../config/project-setup-plan';
import { isProviderError } from '../providers/provider-errors';
import { createTrackerClient, trackerOptionsFromEnv } from '../providers/tracker/tracker-client';
import { redactSecrets } from '../redaction/redact-secrets';

class SetupError extends Error {}

function describeTrackerError(error: unknown, project: string): string {
  const status = isProviderError(error) ? error.status : undefined;
  return status === 404 ? `project ${project} not found in the tracker` : `tracker request failed: ${(error as Error).message}`;
}

export default class ProjectSetup extends Command {
  static override description = 'Set a project\'s service properties in the tracker (repositories, model policy, proposal review)';

  static override examples = [
    '<%= config.bin %> project-setup PROJ --default-repo acme/api --repos acme/api,acme/web',
    '<%= config.bin %> project-setup PROJ --model generate_prd=vertex:gemini-2.5-pro --model code_review=claude:claude-sonnet-4',
    '<%= config.bin %> project-setup PROJ --model-all vertex:gemini-2.5-flash --json',
  ];

  static override args = { project: Args.string({ description: 'tracker project key', required: true }) };

  static override flags = {
    'default-repo': Flags.string({ description: 'service.default_repo: owner/repo used when a ticket has no repo: label' }),
    repos: Flags.string({ description: 'service.repos: comma-separated owner/repo list' }),
    model: Flags.string({ description: '<stage>=<connection>:<model>; repeatable; merges into the existing stage overrides', multiple: true, multipleNonGreedy: true }),
    'model-policy': Flags.string({ description: 'JSON object replacing the whole service.model_policy (individual --model entries win)' }),
    'model-all': Flags.string({ description: '<connection>:<model> for service.model_default (only)' }),
    'remove-model': Flags.string({ description: 'remove one stage override; the property is deleted when none remain', multiple: true, multipleNonGreedy: true }),
    'clear-model-policy': Flags.boolean({ description: 'delete service.model_policy', default: false }),
    'clear-model-default': Flags.boolean({ description: 'delete service.model_default', default: false }),
    'prd-proposals-repo': Flags.string({ description: 'owner/repo for PRD and spec proposal review; an empty value removes it' }),
    'prd-proposals-path': Flags.string({ description: 'base directory for proposals; an empty value resets it' }),
    json: Flags.boolean({ description: 'print {project, mutations} as JSON; on error stdout stays empty', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProjectSetup);
    const project = args.project.trim().toUpperCase();
    if (!/^[A-Z][A-Z0-9_]*$/.test(project)) throw new SetupError(`"${args.project}" is not a project key`);
    const options = {
      defaultRepo: flags['default-repo'], repos: flags.repos, model: flags.model ?? [], modelPolicy: flags['model-policy'],
      modelAll: flags['model-all'], removeModel: flags['remove-model'] ?? [], clearModelPolicy: flags['clear-model-policy'],
      clearModelDefault: flags['clear-model-default'], prdProposalsRepo: flags['prd-proposals-repo'], prdProposalsPath: flags['prd-proposals-path'],
    };
    // Validate what needs no tracker first: a typo never costs a network round trip.
    const dryRun = planProjectSetup(options, undefined);
    if (!dryRun.ok) throw new SetupError(dryRun.errors.join('\n'));

    let tracker;
    try {
      tracker = createTrackerClient(trackerOptionsFromEnv(process.env));
    } catch (error) {
      throw new SetupError((error as Error).message);
    }
    try {
      const merging = options.model.length > 0 && options.modelPolicy === undefined;
      const existing = merging || options.removeModel.length > 0 ? await tracker.getProjectProperty(project, 'service.model_policy') : undefined;
      const plan = planProjectSetup(options, existing);
      if (!plan.ok) throw new SetupError(plan.errors.join('\n'));
      // Touch the project first so that an unknown project fails before anything is written.
      await tracker.getProjectProperty(project, 'service.repos');
      const applied: string[] = [];
      for (const [key, mutation] of Object.entries(plan.mutations)) {
        try {
          if (mutation.operation === 'set') await tracker.setProjectProperty(project, key, mutation.value);
          else await tracker.deleteProjectProperty(project, key);
        } catch (error) {
          // Properties are written one request each: say exactly what did and did not change, so a rerun is safe.
          const pending = Object.keys(plan.mutations).filter((k) => !applied.includes(k));
          throw new SetupError(`${describeTrackerError(error, project)} while writing ${key}; applied: ${applied.join(', ') || 'none'}; not applied: ${pending.join(', ')}`);
        }
        applied.push(key);
      }
      this.report(project, plan.mutations, flags.json);
    } catch (error) {
      if (error instanceof SetupError) throw error;
      throw new SetupError(describeTrackerError(error, project));
    }
  }

  private report(project: string, mutations: Record<string, Mutation>, json: boolean): void {
    if (json) {
      this.log(JSON.stringify({ project, mutations }));
      return;
    }
    this.log(`Updated project ${project}:`);
    for (const [key, mutation] of Object.entries(mutations)) {
      this.log(mutation.operation === 'set' ? `  set    ${key} = ${JSON.stringify(mutation.value)}` : `  delete ${key}`);
    }
  }

  /** Every error, also oclif's own parse errors, is one message on stderr and exit code 1 (stdout stays empty). */
  override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<void> {
    if (error.oclif?.exit === 0) return;
    process.stderr.write(`project-setup: ${redactSecrets(error.message)}\n`);
    process.exitCode = 1;
  }
}
