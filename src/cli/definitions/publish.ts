import { readFileSync } from 'node:fs';
import { OPERATOR_ENVIRONMENT_HELP } from '../../temporal/running-dev';
import { announceRunningStack } from '../../temporal/which-stack';
import { userInfo } from 'node:os';
import { Args, Command, Flags } from '@oclif/core';
import { withDefinitions } from '../../temporal/operator-connection';

/**
 * `service definitions publish FILE` (DESIGN 6): validates a definition file (JSON) against the station catalogue and
 * publishes it to the task queue's registry in Temporal. New tickets of its name pin the newest revision; tickets in
 * flight keep theirs. Exit 1 with one line per problem when the file is invalid or the registry refuses it.
 */
export default class DefinitionsPublish extends Command {
  static override description = `Validate a workflow definition (JSON file) and publish it to the definition registry in Temporal. ${OPERATOR_ENVIRONMENT_HELP}`;
  static override examples = ['<%= config.bin %> definitions publish feature-r3.json', '<%= config.bin %> definitions publish feature-r3.json --json'];
  static override args = { file: Args.string({ description: 'definition file (JSON)', required: true }) };
  static override flags = {
    'data-dir': Flags.string({ description: 'the data folder of the running `service dev` to talk to (needed only when more than one runs)' }),
    json: Flags.boolean({ description: 'print JSON; on error stdout stays empty', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DefinitionsPublish);
    if (!announceRunningStack(process.env, flags['data-dir'])) return this.exit(1);
    let input: unknown;
    try {
      input = JSON.parse(readFileSync(args.file, 'utf8'));
    } catch (error) {
      this.fail(`${args.file}: cannot read it as JSON: ${(error as Error).message}`);
    }
    const outcome = await withDefinitions((definitions) => definitions.publish(input, `cli:${userInfo().username}`));
    if (outcome.outcome === 'invalid') this.fail(`${args.file} is not a valid definition (${outcome.problems.length} problem${outcome.problems.length === 1 ? '' : 's'}):\n${outcome.problems.map((p) => `  - ${p}`).join('\n')}`);
    if (outcome.outcome === 'refused') this.fail(`the registry refused ${args.file}: ${outcome.reason}`);
    const { result, warnings } = outcome;
    for (const warning of warnings) process.stderr.write(`warning: ${args.file}: ${warning}\n`);
    if (flags.json) {
      this.log(JSON.stringify({ ...result, outcome: outcome.outcome, warnings }));
      return;
    }
    this.log(outcome.outcome === 'published'
      ? `published ${result.name} r${result.revision} (digest ${result.digest}); new ${result.name} tickets pin it, tickets in flight keep their revision`
      : `${result.name} r${result.revision} was already published with this digest (${result.digest}) at ${result.published_at}; nothing changed`);
  }

  private fail(message: string): never {
    process.stderr.write(`${message}\n`);
    return this.exit(1);
  }
}
