import { describe, expect, it } from 'vitest';
import { parseRepoRef } from '../../../../src/providers/scmhost/repo-ref';

describe('parseRepoRef', () => {
  it('splits owner/repo into the reference the source-host client takes', () => {
    expect(parseRepoRef('acme/widgets')).toEqual({ owner: 'acme', repo: 'widgets' });
  });

  it('refuses a name without an owner or a repository, naming it', () => {
    expect(() => parseRepoRef('widgets')).toThrow('repository "widgets" is not owner/repo');
    expect(() => parseRepoRef('/widgets')).toThrow('is not owner/repo');
    expect(() => parseRepoRef('acme/')).toThrow('is not owner/repo');
  });
});
