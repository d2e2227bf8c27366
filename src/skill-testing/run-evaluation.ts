import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ModelClient, ResolvedTarget } from '../models/model-client';
import type { Skill } from '../skill-loading/load-skill';
import type { Tracing } from '../tracing/start-tracing';
import { listDatasetCases } from './dataset-cases';
import type { EvalCriteria } from './eval-criteria';
import { renderEvalReport } from './eval-report-html';
import { summarize, type CaseResult, type EvalResults } from './eval-results';
import { evaluateCase, generatedFilesIn } from './evaluate-case';
import { targetLabel } from './model-choice';

export type EvalMode =
  | { mode: 'single'; generated: string; gold: string }
  | { mode: 'batch'; dataset: string; resultsDir: string };

export interface RunEvaluationOptions {
  criteria: EvalCriteria;
  criteriaFile: string;
  source: EvalMode;
  output: string;
  client: ModelClient;
  target: ResolvedTarget;
  judge: Skill;
  onProgress?: (done: number, total: number, label: string) => void;
  tracing?: Tracing;
}

interface PlannedCase {
  id: string;
  generatedFiles: string[];
  resultsFolder?: string;
  goldFile: string;
}

/** Single mode judges one file against one gold file; batch mode every dataset case against its results folder. */
export function planCases(criteria: EvalCriteria, source: EvalMode): PlannedCase[] {
  if (source.mode === 'single') {
    return [{ id: basename(source.generated), generatedFiles: [source.generated], resultsFolder: dirname(source.generated), goldFile: source.gold }];
  }
  return listDatasetCases(source.dataset).map((entry) => {
    const resultsFolder = join(source.resultsDir, entry.id);
    return { id: entry.id, generatedFiles: generatedFilesIn(resultsFolder, criteria.generated_file_patterns), resultsFolder, goldFile: join(entry.folder, criteria.gold_standard_file) };
  });
}

/** Judges every case, then writes results.json and report.html into the output folder. */
export async function runEvaluation(options: RunEvaluationOptions): Promise<{ results: EvalResults; resultsFile: string; reportFile: string }> {
  const planned = planCases(options.criteria, options.source);
  const cases: CaseResult[] = [];
  for (const [index, entry] of planned.entries()) {
    options.onProgress?.(index, planned.length, entry.id);
    cases.push(await evaluateCase({ ...entry, criteria: options.criteria, client: options.client, target: options.target, judge: options.judge, tracing: options.tracing }));
  }
  options.onProgress?.(planned.length, planned.length, 'done');
  const results = summarize({ mode: options.source.mode, criteria: options.criteria, criteriaFile: options.criteriaFile, judgeModel: targetLabel(options.target), cases });
  await mkdir(options.output, { recursive: true });
  const resultsFile = join(options.output, 'results.json');
  const reportFile = join(options.output, 'report.html');
  await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(reportFile, renderEvalReport(results));
  return { results, resultsFile, reportFile };
}
