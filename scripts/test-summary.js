#!/usr/bin/env node
// The closing line of `npm test`: `N passed, N failed[, N skipped]`, read from vitest's JSON report and its console
// output. A test file whose hooks or imports failed has no failed test, and an unhandled error belongs to no test,
// so both are counted as failures here; and whenever vitest exited non-zero the line never says `0 failed`.
// Usage: node scripts/test-summary.js <report.json> <vitest exit status> <vitest console log>
'use strict';
const { readFileSync } = require('node:fs');

function summarise(report, status, log) {
  const files = report.testResults ?? [];
  const failedFilesWithoutFailedTest = files.filter((file) => file.status === 'failed'
    && !(file.assertionResults ?? []).some((test) => test.status === 'failed')).length;
  // vitest's summary line: ` Errors  2 errors` (unhandled errors outside any test), colours removed.
  // eslint-disable-next-line no-control-regex
  const unhandled = Number(/^\s*Errors\s+(\d+)\s+errors?/m.exec(log.replace(/\x1b\[[0-9;]*m/g, ''))?.[1] ?? 0);
  let failed = (report.numFailedTests ?? 0) + failedFilesWithoutFailedTest + unhandled;
  if (status !== 0 && failed === 0) failed = 1;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  return `${report.numPassedTests ?? 0} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

if (require.main === module) {
  const [reportPath, status, logPath] = process.argv.slice(2);
  const read = (path) => { try { return readFileSync(path, 'utf8'); } catch { return ''; } };
  let report = {};
  try { report = JSON.parse(read(reportPath)); } catch { /* vitest died before writing it: the status decides */ }
  console.log(summarise(report, Number(status), read(logPath)));
}

module.exports = { summarise };
