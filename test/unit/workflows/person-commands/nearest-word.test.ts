import { describe, expect, it } from 'vitest';
import { editDistance, nearestWord } from '../../../../workflows/person-commands/nearest-word';

const VERBS = ['approve', 'remove', 'exclude', 'update', 'add', 'skip-gate', 'unskip-gate', 'stop', 'rebase'];

describe('the nearest word to a typo', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('aprove', 'approve')).toBe(1);
    expect(editDistance('approvee', 'approve')).toBe(1);
    expect(editDistance('appreve', 'approve')).toBe(1);
    expect(editDistance('rebsae', 'rebase')).toBe(1);
    expect(editDistance('', 'add')).toBe(3);
    expect(editDistance('merge', 'remove')).toBeGreaterThan(2);
  });

  it.each([
    ['aprove', 'approve'], ['APROVE', 'approve'], ['approved', 'approve'], ['skipgate', 'skip-gate'], ['unskipgate', 'unskip-gate'],
    ['exlude', 'exclude'], ['updte', 'update'], ['rebase', 'rebase'], ['rmove', 'remove'],
  ])('%s means %s', (typed, meant) => {
    expect(nearestWord(typed, VERBS)).toBe(meant);
  });

  it.each(['merge', 'frobnicate', 'x', 'go', 'help', 'a'.repeat(50), ''])('%j suggests nothing', (typed) => {
    expect(nearestWord(typed, VERBS)).toBeUndefined();
  });

  it('suggests nothing when two words are equally near', () => {
    expect(nearestWord('cat', ['bat', 'hat'])).toBeUndefined();
    expect(nearestWord('bat', ['bat', 'hat'])).toBe('bat');
  });
});
