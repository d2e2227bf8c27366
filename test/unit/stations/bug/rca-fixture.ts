import { rcaReportSchema, type RcaReport } from '../../../../activities/stations/bug/rca-report';
import type { AnalysisData } from '../../../../activities/stations/bug/flow-data';

/** A root-cause analysis as analyze_bug leaves it, with `options` fix options. */
export function rcaFixture(options = 2): RcaReport {
  return rcaReportSchema.parse({
    summary: 'The CSV exporter reads the report after its rows were released.',
    code_location: { file: 'src/export/csv.ts', function: 'writeRows', line_range: '40-58' },
    mechanism: 'writeRows iterates a cursor that close() already freed.',
    trigger_to_symptom: 'Export of a large report → cursor closed by the timeout → null row → crash.',
    hypothesis_log: ['Encoding issue: ruled out, ASCII reports crash too.'],
    introduced_in: 'abc1234 (streaming export)',
    confidence: { level: 'high', percentage: 85, rationale: 'Reproduced with a 10k-row report.' },
    reproducibility: 'always, with more than 5,000 rows',
    options: Array.from({ length: options }, (_, i) => ({ title: `Fix ${i + 1}`, description: `Do fix ${i + 1}.`, tradeoffs: `Costs ${i + 1}.` })),
  });
}

export function analysisFixture(options = 2): AnalysisData {
  return { rca: rcaFixture(options), repository: 'acme/api', other_repositories: ['acme/web'], attempts: 1 };
}
