import { Command, Flags } from '@oclif/core';
import { withDefinitions } from '../../temporal/operator-connection';

/** `service definitions list [--json]`: built-in and published revisions, and which one a new ticket pins. */
export default class DefinitionsList extends Command {
  static override description = 'List the built-in and published workflow definitions; "latest" is what a new ticket pins';
  static override examples = ['<%= config.bin %> definitions list', '<%= config.bin %> definitions list --json'];
  static override flags = {
    json: Flags.boolean({ description: 'print JSON', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DefinitionsList);
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
