import { Args, Command, Flags } from '@oclif/core';
import { OPERATOR_ENVIRONMENT_HELP } from '../temporal/running-dev';
import { useRunningStack } from '../temporal/which-stack';
import { describeModelConfiguration, formatTarget, parseModelConfiguration } from '../config/model-configuration';
import { MODEL_POLICY_KEYS } from '../config/model-policy-keys';
import { availableModelsReport, describeResolution, loadProjectModelPolicy, type ProjectModelPolicy } from '../config/model-target-resolver';
import { describeStagePlace, resolveStages, stagePlace } from '../containers/container-readiness';
import { isProviderError } from '../providers/provider-errors';
import { createTrackerClient, trackerOptionsFromEnv } from '../providers/tracker/tracker-client';
import { redactSecrets } from '../redaction/redact-secrets';

/**
 * `service get-config <PROJECT> --models` (SPEC 4.8): checks a project's model policy against this deployment's
 * configuration (the same environment the worker reads) and prints the effective target of every policy key and where
 * it comes from. Exit 1 when the deployment configuration or any key is invalid; with --json, stdout then stays empty
 * and the explanation goes to stderr (SPEC 7), so a script never mistakes a failure for an answer. Each stage also
 * says where its agent runs and, in a container, whether the model proxy can serve its target with this environment;
 * that is information, not an error: the JSON carries the reason, which an error would hide.
 */
export default class GetConfig extends Command {
  static override description = `Validate against the local runtime configuration and print the effective model target of every policy key, and whether each container stage can run in a container now. ${OPERATOR_ENVIRONMENT_HELP}`;

  static override examples = [
    '<%= config.bin %> get-config PROJ --models',
    '<%= config.bin %> get-config PROJ --models --json',
  ];

  static override args = { project: Args.string({ description: 'tracker project key', required: true }) };

  static override flags = {
    'data-dir': Flags.string({ description: 'the data folder of the running `service dev` to talk to (needed only when more than one runs)' }),
    models: Flags.boolean({ description: 'show the effective model target per policy key (where it comes from; host, or whether it can run in a container)', default: false }),
    json: Flags.boolean({ description: 'print JSON; on error stdout stays empty', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(GetConfig);
    // Two stacks running and no --data-dir: the error (the list of stacks) goes to stderr through catch() below.
    const stack = useRunningStack(process.env, { dataDir: flags['data-dir'] });
    if (stack.line) process.stderr.write(`${stack.line}\n`);
    const project = args.project.trim().toUpperCase();
    if (!/^[A-Z][A-Z0-9_]*$/.test(project)) throw new Error(`"${args.project}" is not a project key`);
    if (!flags.models) throw new Error('nothing to show: pass --models');
    const parsed = parseModelConfiguration(process.env);
    if (!parsed.config) throw new Error(`the deployment's model configuration is invalid:\n${parsed.problems.join('\n')}`);
    const config = parsed.config;
    // One line that says what to set, instead of 27 keys each saying that nothing is configured.
    if (config.mode === 'none') throw new Error('no model is configured: set MODEL_CONNECTIONS and MODEL_DEFAULT (or LLM_BACKEND and LLM_MODEL), or run this while a `service dev --sandbox` runs');
    for (const warning of parsed.warnings) process.stderr.write(`warning: ${warning}\n`);

    // Legacy and model-less deployments never read project policy, so they need no tracker settings at all.
    let projectPolicy: ProjectModelPolicy = {};
    if (config.mode === 'connections') {
      let tracker;
      try {
        tracker = createTrackerClient(trackerOptionsFromEnv(process.env));
      } catch (error) {
        throw new Error(`${(error as Error).message} (needed to read the project's model policy)`);
      }
      try {
        projectPolicy = await loadProjectModelPolicy(config, tracker, project);
      } catch (error) {
        const status = isProviderError(error) ? error.status : undefined;
        throw new Error(status === 404 ? `project ${project} not found in the tracker` : `tracker request failed: ${(error as Error).message}`);
      }
    }

    const resolutions = resolveStages(config, projectPolicy);
    const places = resolutions.map((r) => stagePlace(r, process.env));
    const invalid = resolutions.filter((r) => !r.ok);
    const width = Math.max(...MODEL_POLICY_KEYS.map((k) => k.length));
    const targetWidth = Math.max(0, ...resolutions.filter((r) => r.ok).map((r) => describeResolution(r).length));
    const lines = resolutions.map((r, i) => `  ${r.key.padEnd(width)}  ${describeResolution(r).padEnd(targetWidth)}  ${describeStagePlace(r, places[i]!)}`.trimEnd());
    if (flags.json) {
      if (invalid.length) {
        throw new Error([`${invalid.length} of ${resolutions.length} policy keys are invalid for project ${project}:`, ...invalid.map((r) => `  ${r.key}: ${describeResolution(r)}`), '', availableModelsReport(config)].join('\n'));
      }
      this.log(JSON.stringify({
        project,
        mode: config.mode,
        models: Object.fromEntries(resolutions.flatMap((r, i) => (r.ok ? [[r.key, { target: formatTarget(r.target), source: r.source, ...places[i] }]] : []))),
      }));
      return;
    }
    this.log(`Model targets for project ${project} (${config.mode} mode):`);
    this.log(`  ${describeModelConfiguration(config)}`);
    for (const line of lines) this.log(line);
    if (invalid.length) {
      this.log(`\n${invalid.length} of ${resolutions.length} policy keys are invalid.\n${availableModelsReport(config)}`);
      process.exitCode = 1;
    }
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (error.oclif?.exit === 0) return;
    process.stderr.write(`get-config: ${redactSecrets(error.message)}\n`);
    process.exitCode = 1;
  }
}
