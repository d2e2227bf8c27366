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

  it('posts the 30 most severe of thousands of findings and says how many more there were; names the first problems of a bad file', () => {
    const findings = Array.from({ length: 1_000 }, (_, i) => ({ severity: 'low' as const, comment: `c${i}` }));
    const body = codeReviewBody({ summary: 's', findings });
    expect(body.split('\n').filter((line) => line.startsWith('- **'))).toHaveLength(30);
    expect(body).toContain('(970 more not shown)');
    const bad = parseCodeReview(JSON.stringify({ findings: Array.from({ length: 3_000 }, () => ({ severity: 'urgent' })) }));
    expect('error' in bad && bad.error.length).toBeLessThan(1_500);
    expect(bad).toMatchObject({ error: expect.stringMatching(/; and \d+ more problems$/) });
  });
});
