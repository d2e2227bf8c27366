import { userInfo } from 'node:os';
import { OPERATOR_ENVIRONMENT_HELP } from '../temporal/running-dev';
import { announceRunningStack } from '../temporal/which-stack';
import { Args, Command, Flags } from '@oclif/core';
import type { MigrationDecision } from '../../workflows/registry/migration-messages';
import { withDefinitions } from '../temporal/operator-connection';

/** `--map old=new` entries into a mapping; a malformed or repeated entry is an error naming it. */
export function parseMappings(entries: readonly string[]): { ok: true; mapping: Record<string, string> } | { ok: false; problem: string } {
  const mapping: Record<string, string> = {};
  for (const entry of entries) {
    const match = /^([a-z][a-z0-9_]*)=([a-z][a-z0-9_]*)$/.exec(entry.trim());
    if (!match) return { ok: false, problem: `--map ${entry}: expected <old node>=<new node>, e.g. --map prd_gate=prd_approval_gate` };
    if (mapping[match[1]!] !== undefined) return { ok: false, problem: `--map ${entry}: ${match[1]} is mapped twice` };
    mapping[match[1]!] = match[2]!;
  }
  return { ok: true, mapping };
}

export function describeDecision(key: string, d: MigrationDecision): string {
  const move = `${key}: ${d.from.name} r${d.from.revision} → r${d.to.revision}`;
  if (d.applied) return `${move}: migrated; the ticket now stands at ${d.target_node} on r${d.to.revision}`;
  if (d.eligible) return `${move}: eligible (${d.current_node} → ${d.target_node}); nothing changed. Run again with --apply to migrate.`;
  return `${move}: ${d.dry_run ? 'not eligible' : 'refused'}:\n${d.incompatibilities.map((i) => `  - ${i}`).join('\n')}`;
}

/**
 * `service migrate <KEY> --to <revision> [--map old=new ...] [--apply]` (DESIGN 6, SPEC 9): asks the ticket's workflow
 * whether it can move to another revision of its definition (a dry run, recorded as the execution view's
 * `migration`), and with --apply moves it when eligible. Exit 1 when it is not eligible, naming every incompatibility.
 */
export default class Migrate extends Command {
  static override description = `Check (dry run) or apply the migration of a running ticket to another revision of its workflow definition. ${OPERATOR_ENVIRONMENT_HELP}`;
  static override examples = [
    '<%= config.bin %> migrate SBX-1 --to 2',
    '<%= config.bin %> migrate SBX-1 --to 2 --map prd_gate=prd_approval_gate --apply',
  ];
  static override args = { key: Args.string({ description: 'ticket key', required: true }) };
  static override flags = {
    'data-dir': Flags.string({ description: 'the data folder of the running `service dev` to talk to (needed only when more than one runs)' }),
    to: Flags.integer({ description: 'the revision of the ticket\'s definition to move to', required: true, min: 1 }),
    map: Flags.string({ description: 'explicit node mapping <old node>=<new node> (repeatable)', multiple: true, default: [] }),
    apply: Flags.boolean({ description: 'migrate when eligible (without it: a dry run)', default: false }),
    json: Flags.boolean({ description: 'print the decision as JSON; on error stdout stays empty', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Migrate);
    if (!announceRunningStack(process.env, flags['data-dir'])) return this.exit(1);
    const key = args.key.trim().toUpperCase();
    if (!/^[A-Z][A-Z0-9_]*-[1-9][0-9]*$/.test(key)) this.fail(`"${args.key}" is not a ticket key`);
    const mappings = parseMappings(flags.map);
    if (!mappings.ok) this.fail(mappings.problem);
    const result = await withDefinitions((definitions) => definitions.migrate(key, {
      to_revision: flags.to, mapping: mappings.mapping, apply: flags.apply, requested_by: `cli:${userInfo().username}`,
    }));
    if (result.outcome !== 'decided') this.fail(result.message);
    const { decision, versioning } = result;
    if (flags.json) {
      if (!decision.eligible) {
        process.stderr.write(`${describeDecision(key, decision)}\n`);
        this.exit(1);
      }
      this.log(JSON.stringify({ ...decision, versioning }, null, 2));
      return;
    }
    if (!decision.eligible) this.fail(describeDecision(key, decision));
    this.log(describeDecision(key, decision));
    if (versioning?.moved) this.log(`${key}: its worker-build pin moved from ${versioning.from_build} to the current build ${versioning.to_build} of ${versioning.deployment}`);
    else if (versioning) this.log(`${key}: worker build unchanged: ${versioning.reason}`);
  }

  private fail(message: string): never {
    process.stderr.write(`${message}\n`);
    return this.exit(1);
  }
}
