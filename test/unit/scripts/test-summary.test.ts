import { describe, expect, it } from 'vitest';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { summarise } = require('../../../scripts/test-summary.js') as { summarise(report: object, status: number, log: string): string };

const file = (status: string, tests: string[]) => ({ status, assertionResults: tests.map((s) => ({ status: s })) });

describe('the closing line of npm test', () => {
  it('counts passed, failed and skipped tests', () => {
    expect(summarise({ numPassedTests: 5, numFailedTests: 1, numPendingTests: 2, testResults: [file('failed', ['passed', 'failed'])] }, 1, ''))
      .toBe('5 passed, 1 failed, 2 skipped');
  });

  it('counts a file that failed in its hooks, with no failed test, as a failure', () => {
    // The brand-new-machine failure: a beforeAll timed out, every test of the file was skipped, vitest exited 1.
    expect(summarise({ numPassedTests: 2156, numFailedTests: 0, numPendingTests: 1, testResults: [file('failed', ['skipped'])] }, 1, ''))
      .toBe('2156 passed, 1 failed, 1 skipped');
  });

  it('counts unhandled errors from the console summary', () => {
    const log = ' Test Files  3 passed (3)\n      Tests  9 passed (9)\n\u001b[31m     Errors  2 errors\u001b[39m\n';
    expect(summarise({ numPassedTests: 9, numFailedTests: 0, testResults: [] }, 1, log)).toBe('9 passed, 2 failed');
  });

  it('never says 0 failed when vitest exited non-zero, even without a report', () => {
    expect(summarise({}, 1, '')).toBe('0 passed, 1 failed');
  });

  it('says 0 failed on a clean run', () => {
    expect(summarise({ numPassedTests: 3, numFailedTests: 0, testResults: [file('passed', ['passed'])] }, 0, '')).toBe('3 passed, 0 failed');
  });
});
