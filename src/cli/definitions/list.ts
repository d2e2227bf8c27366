import { Command, Flags } from '@oclif/core';
import { OPERATOR_ENVIRONMENT_HELP } from '../../temporal/running-dev';
import { announceRunningStack } from '../../temporal/which-stack';
import { withDefinitions } from '../../temporal/operator-connection';

/** `service definitions list [--json]`: built-in and published revisions, and which one a new ticket pins. */
export default class DefinitionsList extends Command {
  static override description = `List the built-in and published workflow definitions; "latest" is what a new ticket pins. ${OPERATOR_ENVIRONMENT_HELP}`;
  static override examples = ['<%= config.bin %> definitions list', '<%= config.bin %> definitions list --json'];
  static override flags = {
    'data-dir': Flags.string({ description: 'the data folder of the running `service dev` to talk to (needed only when more than one runs)' }),
    json: Flags.boolean({ description: 'print JSON', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DefinitionsList);
    if (!announceRunningStack(process.env, flags['data-dir'])) return this.exit(1);
    const rows = await withDefinitions((definitions) => definitions.list());
    if (flags.json) {
      this.log(JSON.stringify({ definitions: rows }, null, 2));
      return;
    }
    for (const row of rows) {
      const source = row.source === 'built_in' ? 'built in' : `published ${row.published_at} by ${row.published_by}`;
      this.log(`${row.latest ? '*' : ' '} ${row.name} r${row.revision}  ${row.digest.slice(0, 12)}  ${source}`);
    }
    this.log('(* = pinned by new tickets)');
  }
}
