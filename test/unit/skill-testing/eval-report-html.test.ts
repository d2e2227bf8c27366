import { describe, expect, it } from 'vitest';
import { renderEvalReport } from '../../../src/skill-testing/eval-report-html';
import { summarize, type CaseResult } from '../../../src/skill-testing/eval-results';
import { evalCriteriaSchema } from '../../../src/skill-testing/eval-criteria';

const criteria = evalCriteriaSchema.parse({
  skill: 'generate_prd', judge_model: 'sim:judge', gold_standard_file: 'gold.md', generated_file_patterns: ['*.md'],
  criteria: [{ id: 'scope', name: 'Scope', weight: 'critical', prompt: 'x' }, { id: 'clarity', name: 'Clarity', weight: 'important', prompt: 'y' }],
});

function result(id: string, scores: [0 | 1 | 2, 0 | 1 | 2], percentage: number, grade: CaseResult['grade'], passed: boolean): CaseResult {
  return {
    id, status: 'judged', generated_files: ['prd.md'], gold_file: 'gold.md', percentage, grade, passed,
    critical_failures: scores[0] === 0 ? ['scope'] : [],
    criteria: [
      { id: 'scope', name: 'Scope', weight: 'critical', score: scores[0], reasoning: `Scope <b>reasoning</b> of ${id}`, quotes: ['"all" & <everything>'] },
      { id: 'clarity', name: 'Clarity', weight: 'important', score: scores[1], reasoning: 'Plain.', quotes: [] },
    ],
    judge_usage: { input_tokens: 10, output_tokens: 2 }, judge_latency_seconds: 0.5,
  };
}

describe('report.html', () => {
  const results = summarize({ mode: 'batch', criteria, criteriaFile: 'criteria.yaml', judgeModel: 'sim:judge', cases: [result('case-a', [2, 2], 100, 'A', true), result('case-<b>', [0, 2], 33.3, 'D', false)], now: new Date('2026-01-01T00:00:00Z') });
  const html = renderEvalReport(results);

  it('is self-contained: no script, no external file', () => {
    expect(html).not.toMatch(/<script|<link|src=|url\(/i);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('has a table per case with scores, reasoning and quotes, escaped', () => {
    expect(html.match(/<table>/g)).toHaveLength(2);
    expect(html).toContain('Scope &lt;b&gt;reasoning&lt;/b&gt; of case-a');
    expect(html).toContain('<q>&quot;all&quot; &amp; &lt;everything&gt;</q>');
    expect(html).toContain('<h2>case-&lt;b&gt; <span class="fail">FAIL</span>');
    expect(html).toContain('Critical failure: <code>scope</code>');
    expect(html).not.toContain('<b>reasoning');
  });

  it('draws one bar per case in proportion to its score, and the grade boundaries', () => {
    const bars = [...html.matchAll(/<rect class="bar" data-case="([^"]+)" x="160" y="\d+" width="([\d.]+)"/g)].map((m) => [m[1], Number(m[2])]);
    expect(bars).toEqual([['case-a', 480], ['case-&lt;b&gt;', 159.8]]);
    for (const pct of [60, 75, 90]) expect(html).toContain(`>${pct} %</text>`);
  });

  it('shows the overall grade and the failure', () => {
    expect(results.summary).toMatchObject({ grade: 'C', passed_all: false, mean_percentage: 66.7 });
    expect(html).toContain('<h1>Skill evaluation: generate_prd <span class="fail">FAIL</span></h1>');
  });
});
