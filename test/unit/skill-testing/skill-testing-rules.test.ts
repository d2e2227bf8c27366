import { describe, expect, it } from 'vitest';
import { globToRegExp, matchesAnyGlob } from '../../../src/skill-testing/glob-match';
import { gradeOf, verdictOf, type ScoredCriterion } from '../../../src/skill-testing/grade';
import { progressLine } from '../../../src/skill-testing/progress-line';
import { mapRepositoryFolders } from '../../../src/skill-testing/repository-folders';

describe('grade boundaries (REFERENCE: A >= 90 %, B >= 75 % without critical failure, C >= 60 %, else D)', () => {
  it.each([
    [100, false, 'A'], [90, false, 'A'], [89.9, false, 'B'], [75, false, 'B'], [74.9, false, 'C'], [60, false, 'C'], [59.9, false, 'D'], [0, false, 'D'],
    [100, true, 'C'], [90, true, 'C'], [75, true, 'C'], [60, true, 'C'], [59.9, true, 'D'],
  ] as const)('%s %% (critical failure %s) is %s', (percentage, critical, grade) => {
    expect(gradeOf(percentage, critical)).toBe(grade);
  });
});

describe('verdict of scored criteria', () => {
  const s = (id: string, weight: 'critical' | 'important', score: 0 | 1 | 2): ScoredCriterion => ({ id, weight, score });

  it('weights critical criteria twice in the percentage', () => {
    // critical 2/2 (weight 2) + important 0/2 (weight 1) = 4 of 6
    expect(verdictOf([s('a', 'critical', 2), s('b', 'important', 0)], { passThreshold: 0.5, failOnCritical: true }).percentage).toBe(66.7);
  });

  it('fails on a critical criterion scored 0 even when the rest is perfect', () => {
    const verdict = verdictOf([s('a', 'critical', 0), s('b', 'important', 2), s('c', 'important', 2), s('d', 'important', 2), s('e', 'important', 2)], { passThreshold: 0.5, failOnCritical: true });
    expect(verdict).toMatchObject({ passed: false, criticalFailures: ['a'], grade: 'C', percentage: 66.7 });
  });

  it('lets a critical failure pass when fail_on_critical is false, but never with grade A or B', () => {
    const verdict = verdictOf([s('a', 'critical', 0), ...['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((id) => s(id, 'important', 2))], { passThreshold: 0.7, failOnCritical: false });
    expect(verdict.passed).toBe(true);
    expect(verdict.percentage).toBe(80);
    expect(verdict.grade).toBe('C');
  });

  it('needs the share of fully met criteria to reach the threshold; a partial score is not a pass', () => {
    const scores = [s('a', 'important', 2), s('b', 'important', 2), s('c', 'important', 1), s('d', 'important', 1)];
    expect(verdictOf(scores, { passThreshold: 0.5, failOnCritical: true }).passed).toBe(true);
    expect(verdictOf(scores, { passThreshold: 0.75, failOnCritical: true }).passed).toBe(false);
  });

  it('never passes without criteria', () => {
    expect(verdictOf([], { passThreshold: 0, failOnCritical: true }).passed).toBe(false);
  });
});

describe('generated file patterns', () => {
  it('matches file names in any folder without a slash, and paths with one', () => {
    expect(matchesAnyGlob('prd.md', ['*.md'])).toBe(true);
    expect(matchesAnyGlob('docs/prd.md', ['*.md'])).toBe(true);
    expect(matchesAnyGlob('docs/prd.md', ['docs/*.md'])).toBe(true);
    expect(matchesAnyGlob('docs/a/prd.md', ['docs/*.md'])).toBe(false);
    expect(matchesAnyGlob('docs/a/prd.md', ['docs/**/*.md'])).toBe(true);
    expect(matchesAnyGlob('docs/prd.md', ['docs/**/*.md'])).toBe(true);
    expect(matchesAnyGlob('spec.json', ['*.{md,txt}'])).toBe(false);
    expect(matchesAnyGlob('spec.txt', ['*.{md,txt}'])).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });
});

describe('repository folders', () => {
  it('pairs repositories with folders by name and offers unnamed folders under their own name', () => {
    expect(mapRepositoryFolders(['acme/api', 'acme/web'], ['/src/api', '/src/tools'])).toEqual([
      { name: 'acme/api', folder: '/src/api' },
      { name: 'acme/web', folder: null },
      { name: 'tools', folder: '/src/tools' },
    ]);
  });

  it('pairs one repository with one folder whatever their names', () => {
    expect(mapRepositoryFolders(['acme/api'], ['/tmp/checkout'])).toEqual([{ name: 'acme/api', folder: '/tmp/checkout' }]);
  });
});

describe('progress line', () => {
  it('draws the bar in proportion', () => {
    expect(progressLine(1, 4, 'case-2', 8)).toBe('[##------] 1/4 case-2');
    expect(progressLine(4, 4, 'done', 8)).toBe('[########] 4/4 done');
  });
});
