import { Command, Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createModelClient } from '../../models/model-client';
import { redactSecrets } from '../../redaction/redact-secrets';
import { loadSkill } from '../../skill-loading/load-skill';
import { loadEvalCriteria } from '../../skill-testing/eval-criteria';
import { evalSummaryLine } from '../../skill-testing/eval-results';
import { createMlflowClient } from '../../skill-testing/mlflow-client';
import { describeLoggedRun, logEvaluationToMlflow } from '../../skill-testing/mlflow-logging';
import { chooseModel, modelConfigurationFrom } from '../../skill-testing/model-choice';
import { progressLine } from '../../skill-testing/progress-line';
import { runEvaluation, type EvalMode } from '../../skill-testing/run-evaluation';
import { startTracing } from '../../tracing/start-tracing';
import { DEFAULT_MLFLOW_EXPERIMENT } from './run';

/** The skill the judge follows (skills/default/skill_eval_judge): prompts are skills, not TypeScript strings. */
export const JUDGE_SKILL = 'skill_eval_judge';

/**
 * `service test-skill eval` (SPEC 4.8): a judge model scores a skill's generated output against a gold standard on
 * the criteria of a YAML file, 0-2 each; writes results.json and report.html; exit 1 unless every case passed.
 */
export default class TestSkillEval extends Command {
  static override description = 'Judge generated output against a gold standard on the criteria of a YAML file; write results.json and report.html (exit 1 unless every case passed)';

  static override examples = [
    '<%= config.bin %> test-skill eval --criteria criteria.yaml --generated out/prd.md --gold cases/csv/gold.md --output eval/',
    '<%= config.bin %> test-skill eval --criteria criteria.yaml --dataset datasets/prd --results-dir out/ --output eval/',
  ];

  static override flags = {
    criteria: Flags.string({ description: 'criteria YAML (skill, judge_model, gold_standard_file, generated_file_patterns, criteria, pass_threshold, fail_on_critical)', required: true }),
    output: Flags.string({ description: 'folder for results.json and report.html', required: true }),
    generated: Flags.string({ description: 'single mode: the generated file', dependsOn: ['gold'], exclusive: ['dataset', 'results-dir'] }),
    gold: Flags.string({ description: 'single mode: the gold standard file', dependsOn: ['generated'] }),
    dataset: Flags.string({ description: 'batch mode: the dataset folder (one folder per case with input.yaml and the gold standard file)', dependsOn: ['results-dir'], exclusive: ['generated', 'gold'] }),
    'results-dir': Flags.string({ description: 'batch mode: the --output of `test-skill run --dataset`', dependsOn: ['dataset'] }),
    mlflow: Flags.string({ description: 'MLflow tracking server URI: log the evaluation there' }),
    'mlflow-experiment': Flags.string({ description: 'MLflow experiment name', default: DEFAULT_MLFLOW_EXPERIMENT }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TestSkillEval);
    let source: EvalMode;
    if (flags.generated && flags.gold) {
      for (const [flag, path] of [['--generated', flags.generated], ['--gold', flags.gold]] as const) if (!existsSync(path)) throw new Error(`${flag} ${path} does not exist`);
      source = { mode: 'single', generated: resolve(flags.generated), gold: resolve(flags.gold) };
    } else if (flags.dataset && flags['results-dir']) {
      source = { mode: 'batch', dataset: flags.dataset, resultsDir: flags['results-dir'] };
    } else {
      throw new Error('give --generated and --gold (single mode), or --dataset and --results-dir (batch mode)');
    }
    const criteria = loadEvalCriteria(flags.criteria);
    const target = chooseModel(modelConfigurationFrom(process.env), criteria.judge_model, JUDGE_SKILL);
    const judge = loadSkill(JUDGE_SKILL);
    const mlflow = flags.mlflow ? createMlflowClient({ trackingUri: flags.mlflow, env: process.env }) : undefined;
    const tty = process.stderr.isTTY === true;
    const tracing = startTracing(process.env);
    const { results, resultsFile, reportFile } = await runEvaluation({
      criteria, criteriaFile: flags.criteria, source, output: flags.output, client: createModelClient({ env: process.env }), target, judge, tracing,
      onProgress: (done, total, current) => {
        if (source.mode !== 'batch') return;
        const line = progressLine(done, total, done < total ? current : 'done');
        process.stderr.write(tty ? `\r${line.padEnd(72)}${done === total ? '\n' : ''}` : `${line}\n`);
      },
    }).finally(() => tracing.shutdown());
    this.log(evalSummaryLine(results));
    this.log(`results: ${resultsFile}\nreport: ${reportFile}`);
    if (!results.summary.passed_all) process.exitCode = 1;
    if (mlflow) {
      try {
        this.log(describeLoggedRun(await logEvaluationToMlflow(mlflow, { experiment: flags['mlflow-experiment'], results, resultsFile, reportFile })));
      } catch (error) {
        process.stderr.write(`test-skill eval: the results are written, but logging to MLflow failed: ${redactSecrets((error as Error).message)}\n`);
        process.exitCode = 1;
      }
    }
  }

  override async catch(error: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (error.oclif?.exit === 0) return;
    process.stderr.write(`test-skill eval: ${redactSecrets(error.message)}\n`);
    process.exitCode = 1;
  }
}
