import { Args, Command, Flags } from '@oclif/core';
import { formatTarget, parseModelConfiguration } from '../config/model-configuration';
import { MODEL_POLICY_KEYS } from '../config/model-policy-keys';
import { loadProjectModelPolicy, resolveModelTarget, availableModelsReport } from '../config/model-target-resolver';
import { createTrackerClient, trackerOptionsFromEnv } from '../providers/tracker/tracker-client';
import { redactSecrets } from '../redaction/redact-secrets';

export default class GetConfig extends Command {
  static override description = 'Validate against the local runtime configuration and print the effective model target of every policy key';

  static override args = { project: Args.string({ description: 'tracker project key', required: true }) };

  static override flags = {
    models: Flags.boolean({ description: 'show the effective model target per policy key (and where it comes from)', default: false }),
    json: Flags.boolean({ description: 'print JSON; on error stdout stays empty', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(GetConfig);
    const project = args.project.trim().toUpperCase();
    if (!flags.models) throw new Error('nothing to show: pass --models');
    const parsed = parseModelConfiguration(process.env);
    if (!parsed.config) throw new Error(`the deployment's model configuration is invalid:\n${parsed.problems.join('\n')}`);
    const config = parsed.config;
    let properties;
    if (config.mode === 'connections') {
      try {
        properties = createTrackerClient(trackerOptionsFromEnv(process.env));
      } catch (error) {
        throw new Error(`${(error as Error).message} (needed to read the project's model policy)`);
      }
    }
    const projectPolicy = await loadProjectModelPolicy(config, properties, project);
    const resolutions = MODEL_POLICY_KEYS.map((key) => resolveModelTarget(config, key, projectPolicy));
    const invalid = resolutions.filter((r) => !r.ok);
    if (flags.json) {
      this.log(JSON.stringify({
        project,
        mode: config.mode,
        valid: invalid.length === 0,
        models: Object.fromEntries(resolutions.map((r) => [r.key, r.ok ? { target: formatTarget(r.target), source: r.source } : { error: r.problem, source: r.source }])),
      }));
    } else {
      this.log(`Model targets for project ${project} (${config.mode} mode):`);
      const width = Math.max(...MODEL_POLICY_KEYS.map((k) => k.length));
      for (const r of resolutions) this.log(`  ${r.key.padEnd(width)}  ${r.ok ? `${formatTarget(r.target)}  (${r.source})` : `INVALID (${r.source}): ${r.problem}`}`);
      if (invalid.length) this.log(`\n${availableModelsReport(config)}`);
    }
    if (invalid.length) process.exitCode = 1;
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (error.oclif?.exit === 0) return;
    process.stderr.write(`get-config: ${redactSecrets(error.message)}\n`);
    process.exitCode = 1;
  }
}
