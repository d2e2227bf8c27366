import { describe, expect, it } from 'vitest';
import { rcaCommentMarkdown } from '../../../../activities/stations/bug/rca-comment';
import { rcaFixture } from './rca-fixture';

describe('the RCA comment', () => {
  it('shows the root cause, the numbered options and how to answer', () => {
    const text = rcaCommentMarkdown(rcaFixture(3), { ticketKey: 'BUG-1', converged: true, revision: 1 });
    expect(text.startsWith('## Root-cause analysis for BUG-1\n')).toBe(true);
    for (const part of [
      '### Root cause', 'The CSV exporter reads the report after its rows were released.',
      '**Code location:** `src/export/csv.ts` in `writeRows` (lines 40-58)',
      '**Mechanism:** writeRows iterates', '**From trigger to symptom:** Export of a large report',
      '**Confidence:** high (85%): Reproduced with a 10k-row report.', '**Introduced in:** abc1234 (streaming export)',
      '**Reproducibility:** always, with more than 5,000 rows', '### Fix options', '### How to answer',
      '`>option N` (N from 1 to 3', '`! <feedback>`', '`? <question>`',
    ]) expect(text).toContain(part);
    expect([...text.matchAll(/^#### Option (\d): Fix (\d)$/gm)].map((m) => [m[1], m[2]])).toEqual([['1', '1'], ['2', '2'], ['3', '3']]);
    expect(text).toContain('**Trade-offs:** Costs 2.');
    // The comment never starts a line with a command of its own, nor shows one the effect layer would break up.
    expect(text).not.toMatch(/^\s*>option/im);
    expect(text).not.toMatch(/>option\s*\d/i);
    expect(text).not.toContain('did not converge');
  });

  it('offers `>option 1` alone when there is one option, and says the revision', () => {
    const text = rcaCommentMarkdown(rcaFixture(1), { ticketKey: 'BUG-1', converged: true, revision: 2 });
    expect(text).toContain('## Root-cause analysis for BUG-1 (revision 2)');
    expect(text).toContain('`>option N` with N = 1 (the only option) to go on with this fix option');
    expect(text).not.toContain('N from');
  });

  it('says when the reflection did not converge, with the last critique in brief', () => {
    const critique = `The location is wrong.\n${'x'.repeat(2_000)}`;
    const text = rcaCommentMarkdown(rcaFixture(), { ticketKey: 'BUG-1', converged: false, critique, revision: 1 });
    expect(text).toContain('The reflection did not converge after three rounds');
    expect(text).toContain('Its last critique: _The location is wrong. xxx');
    expect(text.length).toBeLessThan(rcaCommentMarkdown(rcaFixture(), { ticketKey: 'BUG-1', converged: true, revision: 1 }).length + 900);
  });

  it('is the same text for the same analysis', () => {
    const opts = { ticketKey: 'BUG-1', converged: true, revision: 1 };
    expect(rcaCommentMarkdown(rcaFixture(), opts)).toBe(rcaCommentMarkdown(rcaFixture(), opts));
  });
});
