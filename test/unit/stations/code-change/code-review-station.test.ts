import { describe, expect, it } from 'vitest';
import { codeReviewBody, parseCodeReview } from '../../../../activities/stations/code-change/code-review-station';

describe('code review', () => {
  it('reads the review the agent wrote, and says what is wrong with a bad one', () => {
    expect(parseCodeReview('{"summary":"ok","findings":[{"file":"a.ts","line":3,"comment":"null"}]}')).toEqual({ summary: 'ok', findings: [{ file: 'a.ts', line: 3, severity: 'medium', comment: 'null' }] });
    expect(parseCodeReview(undefined)).toEqual({ error: '.service/code_review.json was not written' });
    expect(parseCodeReview('not json')).toEqual({ error: '.service/code_review.json is not JSON' });
    expect(parseCodeReview('{"findings":[{"severity":"urgent","comment":"x"}]}')).toMatchObject({ error: expect.stringContaining('findings.0.severity') });
  });

  it('writes one review text, most severe findings first, each with its place', () => {
    const body = codeReviewBody({ summary: 'Two things.', findings: [
      { severity: 'low', comment: 'Name it rows.', file: 'src/a.ts' },
      { severity: 'high', comment: 'SQL built from input.', file: 'src/db.ts', line: 12 },
    ] });
    expect(body.split('\n')).toEqual([
      '**Automated review by the service** (a person still decides).', '', 'Two things.', '',
      '- **high** `src/db.ts:12`: SQL built from input.', '- **low** `src/a.ts`: Name it rows.',
    ]);
    expect(codeReviewBody({ summary: '', findings: [] })).toContain('Nothing to flag.');
  });
});
