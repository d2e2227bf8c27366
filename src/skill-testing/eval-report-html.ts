import type { CaseResult, EvalResults } from './eval-results';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const SCORE_COLOR = ['#c0392b', '#d68910', '#1e8449'] as const;
const GRADE_COLOR: Record<string, string> = { A: '#1e8449', B: '#2e86c1', C: '#d68910', D: '#c0392b' };

/** Horizontal bars of each case's percentage, with the grade boundaries (60, 75, 90 %) as dashed lines. */
export function casesChartSvg(cases: readonly CaseResult[]): string {
  const rowHeight = 28;
  const labelWidth = 160;
  const barWidth = 480;
  const top = 24;
  const height = top + Math.max(1, cases.length) * rowHeight + 8;
  const width = labelWidth + barWidth + 70;
  const x = (pct: number) => labelWidth + (Math.max(0, Math.min(100, pct)) / 100) * barWidth;
  const lines = [60, 75, 90].map((pct) => `<line x1="${x(pct)}" y1="${top - 6}" x2="${x(pct)}" y2="${height - 4}" stroke="#888" stroke-dasharray="4 3"/><text x="${x(pct)}" y="${top - 10}" font-size="11" text-anchor="middle" fill="#555">${pct} %</text>`);
  const rows = cases.map((c, i) => {
    const y = top + i * rowHeight;
    const color = GRADE_COLOR[c.grade] ?? '#555';
    return [
      `<text x="${labelWidth - 8}" y="${y + 17}" font-size="13" text-anchor="end">${escapeHtml(c.id.length > 22 ? `${c.id.slice(0, 21)}…` : c.id)}</text>`,
      `<rect x="${labelWidth}" y="${y + 4}" width="${barWidth}" height="18" fill="#eee"/>`,
      `<rect class="bar" data-case="${escapeHtml(c.id)}" x="${labelWidth}" y="${y + 4}" width="${(x(c.percentage) - labelWidth).toFixed(1)}" height="18" fill="${color}"/>`,
      `<text x="${labelWidth + barWidth + 8}" y="${y + 17}" font-size="13">${c.percentage.toFixed(1)} % ${c.grade}</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Score per case" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${rows.join('')}${lines.join('')}</svg>`;
}

/** Small bars of one case's criterion scores (0-2). */
export function criteriaChartSvg(result: CaseResult): string {
  const barWidth = 34;
  const gap = 14;
  const chartHeight = 60;
  const width = Math.max(1, result.criteria.length) * (barWidth + gap) + gap;
  const height = chartHeight + 40;
  const bars = result.criteria.map((c, i) => {
    const h = (c.score / 2) * chartHeight;
    const x = gap + i * (barWidth + gap);
    return `<rect x="${x}" y="${16 + chartHeight - h}" width="${barWidth}" height="${Math.max(h, 2)}" fill="${SCORE_COLOR[c.score]}"><title>${escapeHtml(c.name)}: ${c.score}/2</title></rect><text x="${x + barWidth / 2}" y="${12 + chartHeight - h}" font-size="10" text-anchor="middle">${c.score}</text><text x="${x + barWidth / 2}" y="${chartHeight + 32}" font-size="10" text-anchor="middle">${escapeHtml(c.id.length > 7 ? `${c.id.slice(0, 6)}…` : c.id)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Criterion scores of ${escapeHtml(result.id)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><line x1="0" y1="${16 + chartHeight}" x2="${width}" y2="${16 + chartHeight}" stroke="#999"/>${bars.join('')}</svg>`;
}

function caseSection(result: CaseResult): string {
  const rows = result.criteria.map((c) => `<tr>
<td><strong>${escapeHtml(c.name)}</strong><br><code>${escapeHtml(c.id)}</code></td>
<td><span class="weight ${c.weight}">${c.weight}</span></td>
<td class="score s${c.score}">${c.score}/2</td>
<td>${escapeHtml(c.reasoning)}${c.quotes.length ? `<ul class="quotes">${c.quotes.map((q) => `<li><q>${escapeHtml(q)}</q></li>`).join('')}</ul>` : ''}</td>
</tr>`).join('\n');
  const status = result.passed ? '<span class="pass">PASS</span>' : '<span class="fail">FAIL</span>';
  return `<section class="case" id="case-${escapeHtml(result.id)}">
<h2>${escapeHtml(result.id)} ${status} <span class="grade g${result.grade}">${result.grade}</span> <small>${result.percentage.toFixed(1)} %</small></h2>
<p class="files">Generated: ${result.generated_files.map((f) => `<code>${escapeHtml(f)}</code>`).join(', ') || '<em>none</em>'} · Gold: <code>${escapeHtml(result.gold_file)}</code>${result.skill_run ? ` · Skill run: ${escapeHtml(result.skill_run.model)}, ${result.skill_run.input_tokens + result.skill_run.output_tokens} tokens, ${result.skill_run.latency_seconds.toFixed(1)} s` : ''}</p>
${result.error ? `<p class="error">${escapeHtml(result.error)}</p>` : ''}
${result.critical_failures.length ? `<p class="error">Critical failure: ${result.critical_failures.map((id) => `<code>${escapeHtml(id)}</code>`).join(', ')}</p>` : ''}
${criteriaChartSvg(result)}
<table>
<thead><tr><th>Criterion</th><th>Weight</th><th>Score</th><th>Reasoning and quotes</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}

/**
 * The evaluation as one self-contained HTML page (no script, no external file): the summary, a chart of the cases'
 * scores, and per case a table of criterion scores with the judge's reasoning and quotes. Every text is escaped.
 */
export function renderEvalReport(results: EvalResults): string {
  const s = results.summary;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Skill evaluation: ${escapeHtml(results.skill)}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 1100px; color: #222; padding: 0 16px; }
h1 { margin-bottom: 4px; } h2 { margin: 0 0 8px; font-size: 20px; } small { color: #666; font-weight: normal; }
.meta { color: #555; margin-top: 0; }
.cards { display: flex; gap: 12px; margin: 16px 0; flex-wrap: wrap; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 10px 16px; min-width: 110px; }
.card b { display: block; font-size: 24px; }
.pass { color: #fff; background: #1e8449; padding: 2px 8px; border-radius: 4px; font-size: 14px; }
.fail { color: #fff; background: #c0392b; padding: 2px 8px; border-radius: 4px; font-size: 14px; }
.grade { color: #fff; padding: 2px 8px; border-radius: 4px; font-size: 14px; }
.gA { background: #1e8449; } .gB { background: #2e86c1; } .gC { background: #d68910; } .gD { background: #c0392b; }
.case { border-top: 2px solid #eee; padding-top: 16px; margin-top: 24px; }
table { border-collapse: collapse; width: 100%; margin-top: 8px; }
th, td { border: 1px solid #ddd; padding: 6px 8px; vertical-align: top; text-align: left; font-size: 14px; }
th { background: #f5f5f5; }
td.score { font-weight: bold; text-align: center; width: 60px; color: #fff; }
td.s0 { background: #c0392b; } td.s1 { background: #d68910; } td.s2 { background: #1e8449; }
.weight { font-size: 12px; padding: 1px 6px; border-radius: 3px; background: #eee; }
.weight.critical { background: #fdecea; color: #a93226; }
.quotes { margin: 6px 0 0; padding-left: 18px; color: #444; }
.error { color: #a93226; font-weight: bold; }
.files { color: #555; font-size: 13px; }
</style>
</head>
<body>
<h1>Skill evaluation: ${escapeHtml(results.skill)} ${s.passed_all ? '<span class="pass">PASS</span>' : '<span class="fail">FAIL</span>'}</h1>
<p class="meta">Judge ${escapeHtml(results.judge_model)} · criteria <code>${escapeHtml(results.criteria_file)}</code> · pass threshold ${Math.round(results.pass_threshold * 100)} % of criteria fully met${results.fail_on_critical ? ' · a critical criterion scored 0 fails' : ''} · ${escapeHtml(results.generated_at)}</p>
<div class="cards">
<div class="card">Grade<b><span class="grade g${s.grade}">${s.grade}</span></b></div>
<div class="card">Mean score<b>${s.mean_percentage.toFixed(1)} %</b></div>
<div class="card">Passed<b>${s.passed}/${s.cases}</b></div>
<div class="card">Critical failures<b>${s.critical_failures}</b></div>
<div class="card">Judge tokens<b>${s.judge_usage.input_tokens + s.judge_usage.output_tokens}</b></div>
</div>
<h2>Score per case</h2>
${casesChartSvg(results.cases)}
${results.cases.map(caseSection).join('\n')}
</body>
</html>
`;
}
