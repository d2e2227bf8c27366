#!/usr/bin/env node
// Looks at a `service test-skill eval` report.html in a real browser: headless Chromium renders it to a PNG and dumps
// the DOM it parsed, and the script checks that the page has the summary, one table per case and the SVG bars.
//
// Usage: node scripts/check-eval-report.js [report.html] [--out DIR]
// Without a report it renders a sample evaluation (two cases, one with a critical failure) with the built code
// (run `npm run build` first). Needs Chromium (`apt-get install -y chromium`; CHROMIUM=path to use another binary).
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 ? resolve(args[outIndex + 1]) : mkdtempSync(join(tmpdir(), 'eval-report-'));
mkdirSync(outDir, { recursive: true });
const given = args.find((arg, i) => !arg.startsWith('--') && (outIndex < 0 || i !== outIndex + 1));
const chromium = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) {
  console.error('check-eval-report: Chromium not found: apt-get install -y chromium (or set CHROMIUM)');
  process.exit(2);
}

function sampleReport() {
  const root = resolve(__dirname, '..');
  const { summarize } = require(join(root, 'dist/src/skill-testing/eval-results.js'));
  const { renderEvalReport } = require(join(root, 'dist/src/skill-testing/eval-report-html.js'));
  const criteria = {
    skill: 'generate_prd', judge_model: 'sim:judge', gold_standard_file: 'gold.md', generated_file_patterns: ['*.md'], pass_threshold: 0.7, fail_on_critical: true,
    criteria: [
      { id: 'scope', name: 'Scope matches the gold standard', weight: 'critical', prompt: '' },
      { id: 'requirements', name: 'Testable requirements', weight: 'important', prompt: '' },
      { id: 'open_questions', name: 'Open questions listed', weight: 'important', prompt: '' },
    ],
  };
  const criterion = (c, score, reasoning, quotes) => ({ id: c.id, name: c.name, weight: c.weight, score, reasoning, quotes });
  const [scope, reqs, open] = criteria.criteria;
  const usage = { input_tokens: 1200, output_tokens: 90 };
  const cases = [
    { id: 'csv-export', status: 'judged', generated_files: ['prd.md'], gold_file: 'datasets/prd/csv-export/gold.md', percentage: 87.5, grade: 'B', passed: true, critical_failures: [], judge_usage: usage, judge_latency_seconds: 2.1,
      skill_run: { model: 'sim:skill-model', status: 'completed', input_tokens: 5400, output_tokens: 800, latency_seconds: 12.3 },
      criteria: [criterion(scope, 2, 'Covers all reports including archived ones, as the gold standard does.', ['All reports, including archived ones, can be exported as CSV.']), criterion(reqs, 2, 'Each requirement has a MUST/SHOULD and a check.', []), criterion(open, 1, 'Lists one open question; the gold standard has three, including the delimiter <;>.', ['Which delimiter?'])] },
    { id: 'dark-mode', status: 'judged', generated_files: ['prd.md'], gold_file: 'datasets/prd/dark-mode/gold.md', percentage: 37.5, grade: 'D', passed: false, critical_failures: ['scope'], judge_usage: usage, judge_latency_seconds: 1.8,
      criteria: [criterion(scope, 0, 'The gold standard limits dark mode to the web app; the PRD promises every client.', ['Everything gets a dark theme.']), criterion(reqs, 2, 'Requirements are testable.', []), criterion(open, 1, 'Partial.', [])] },
  ];
  return renderEvalReport(summarize({ mode: 'batch', criteria, criteriaFile: 'criteria.yaml', judgeModel: 'sim:judge', cases }));
}

const report = given ? resolve(given) : join(outDir, 'report.html');
if (!given) writeFileSync(report, sampleReport());
const profile = mkdtempSync(join(tmpdir(), 'eval-report-chromium-'));
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--hide-scrollbars'];
const png = join(outDir, 'report.png');
try {
  const shot = spawnSync(chromium, [...flags, `--screenshot=${png}`, '--window-size=1200,1400', `file://${report}`], { encoding: 'utf8', timeout: 120_000 });
  if (!existsSync(png)) throw new Error(`no screenshot: ${shot.stderr || shot.error}`);
  const dom = spawnSync(chromium, [...flags, '--dump-dom', `file://${report}`], { encoding: 'utf8', timeout: 120_000, maxBuffer: 50 * 1024 * 1024 }).stdout;
  const header = readFileSync(png);
  const width = header.readUInt32BE(16);
  const height = header.readUInt32BE(20);
  const checks = [
    ['the screenshot is a 1200x1400 PNG', header.subarray(1, 4).toString() === 'PNG' && width === 1200 && height === 1400],
    ['the screenshot is not blank (more than 20 KB)', statSync(png).size > 20_000],
    ['the browser parsed the summary', /<h1>Skill evaluation: /.test(dom)],
    ['one table per case', (dom.match(/<table>/g) || []).length === (dom.match(/<section class="case"/g) || []).length],
    ['the SVG chart has a bar per case', (dom.match(/<rect class="bar"/g) || []).length === (dom.match(/<section class="case"/g) || []).length],
  ];
  for (const [name, ok] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
  console.log(`report: ${report}\nscreenshot: ${png}`);
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
} finally {
  rmSync(profile, { recursive: true, force: true });
}
