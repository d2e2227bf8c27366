import { Command, Flags } from '@oclif/core';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createLanguageModel } from '../../models/language-model-factory';
import { redactSecrets } from '../../redaction/redact-secrets';
import { createMlflowClient } from '../../skill-testing/mlflow-client';
import { describeLoggedRun, logSkillRunToMlflow } from '../../skill-testing/mlflow-logging';
import { chooseModel, modelConfigurationFrom, targetLabel } from '../../skill-testing/model-choice';
import { progressLine } from '../../skill-testing/progress-line';
import { planInputs, runSkillTests, summaryLine } from '../../skill-testing/run-skill-tests';
import { loadSkillUnderTest } from '../../skill-testing/skill-under-test';
import { startTracing } from '../../tracing/start-tracing';

export const DEFAULT_MLFLOW_EXPERIMENT = 'service-skill-eval';

/**
 * `service test-skill run` (SPEC 4.8): runs a skill offline on one input or a dataset, with read-only filesystem tools
 * over local repository folders and the configured model, and writes the generated files, response.json and
 * trace.json per input.
 */
export default class TestSkillRun extends Command {
  static override description = 'Run a skill offline on an input file or a dataset, over local repository folders (read only), and write its generated files, response.json and trace.json';

  static override examples = [
    '<%= config.bin %> test-skill run --skill generate_prd --skill-dir skills/default/generate_prd --input cases/csv/input.yaml --output out/ --repos ../api',
    '<%= config.bin %> test-skill run --skill generate_prd --skill-dir skills --project PROJ --dataset datasets/prd --output out/ --model local:qwen3',
  ];

  static override flags = {
    skill: Flags.string({ description: 'skill name (the "name" in SKILL.md)', required: true }),
    'skill-dir': Flags.string({ description: 'the skill folder (holds SKILL.md), or a skills root with default/<skill>/ and <project>/<skill>/', required: true }),
    output: Flags.string({ description: 'folder for the results', required: true }),
    input: Flags.string({ description: 'one input YAML (ticket_key, title, available_repos, prompt, prompt_inputs)', exactlyOne: ['input', 'dataset'] }),
    dataset: Flags.string({ description: 'a dataset folder: one folder per case holding input.yaml', exactlyOne: ['input', 'dataset'] }),
    project: Flags.string({ description: 'project key: named in the prompt, and picks the project override in a skills root' }),
    model: Flags.string({ description: '"connection:model" or a model name (default: the skill\'s policy key as the worker resolves it)' }),
    references: Flags.string({ description: 'a file of project references given to the skill' }),
    repos: Flags.string({ description: 'local folders standing in for the repositories (read only)', multiple: true, default: [] }),
    mlflow: Flags.string({ description: 'MLflow tracking server URI: log the run there' }),
    'mlflow-experiment': Flags.string({ description: 'MLflow experiment name', default: DEFAULT_MLFLOW_EXPERIMENT }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TestSkillRun);
    for (const folder of flags.repos) {
      if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new Error(`--repos ${folder} is not a folder`);
    }
    if (flags.references && !existsSync(flags.references)) throw new Error(`--references ${flags.references} does not exist`);
    const skill = loadSkillUnderTest(flags.skill, flags['skill-dir'], flags.project);
    const inputs = planInputs({ input: flags.input, dataset: flags.dataset, output: flags.output });
    const resolved = chooseModel(modelConfigurationFrom(process.env), flags.model, flags.skill);
    const label = targetLabel(resolved);
    const model = createLanguageModel(resolved.connection, resolved.target.model, process.env);
    const mlflow = flags.mlflow ? createMlflowClient({ trackingUri: flags.mlflow, env: process.env }) : undefined;
    const summaryFile = flags.dataset ? join(flags.output, 'summary.json') : undefined;

    const tty = process.stderr.isTTY === true;
    const tracing = startTracing(process.env);
    const summary = await runSkillTests({
      skill, inputs, repos: flags.repos, model, modelLabel: label, maxOutputTokens: resolved.connection.max_output_tokens,
      project: flags.project, referencesFile: flags.references, tracing,
      onProgress: (done, total, current) => {
        if (!flags.dataset) return;
        const line = progressLine(done, total, done < total ? current : 'done');
        process.stderr.write(tty ? `\r${line.padEnd(72)}${done === total ? '\n' : ''}` : `${line}\n`);
      },
    }, summaryFile).finally(() => tracing.shutdown());
    this.log(summaryLine(summary));
    if (summary.failed > 0) process.exitCode = 1;
    if (mlflow) {
      try {
        const logged = await logSkillRunToMlflow(mlflow, {
          experiment: flags['mlflow-experiment'], summary, project: flags.project, summaryFile,
          source: flags.dataset ? `dataset ${flags.dataset}` : `input ${flags.input}`,
          outputs: inputs.map((planned) => ({ id: planned.id, outputDir: planned.outputDir })),
        });
        this.log(describeLoggedRun(logged));
      } catch (error) {
        process.stderr.write(`test-skill run: the results are written, but logging to MLflow failed: ${redactSecrets((error as Error).message)}\n`);
        process.exitCode = 1;
      }
    }
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (error.oclif?.exit === 0) return;
    process.stderr.write(`test-skill run: ${redactSecrets(error.message)}\n`);
    process.exitCode = 1;
  }
}
