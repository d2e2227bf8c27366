import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSkill, SkillError } from '../../../src/skill-loading/load-skill';

function skillsTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'skills-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: writes a ${name}\n---\n${body}\n`;

describe('loadSkill', () => {
  it('reads the default skill with its front matter and body', () => {
    const root = skillsTree({ 'default/prd/SKILL.md': skill('prd', 'Write the PRD.') });
    const loaded = loadSkill('prd', { skillsRoot: root, projectKey: 'SBX' });
    expect(loaded).toMatchObject({ name: 'prd', description: 'writes a prd', body: 'Write the PRD.', scope: 'default' });
    expect(loaded.review).toBeUndefined();
  });

  it('prefers the project override, matched by lower-case project key', () => {
    const root = skillsTree({ 'default/prd/SKILL.md': skill('prd', 'default'), 'sbx/prd/SKILL.md': skill('prd', 'ours') });
    expect(loadSkill('prd', { skillsRoot: root, projectKey: 'SBX' })).toMatchObject({ body: 'ours', scope: 'sbx' });
    expect(loadSkill('prd', { skillsRoot: root, projectKey: 'OTHER' }).body).toBe('default');
  });

  it('reads review.md with max_retries, falling back to the deployment default', () => {
    const root = skillsTree({
      'default/a/SKILL.md': skill('a', 'x'), 'default/a/review.md': '---\nmax_retries: 0\n---\nCheck it.',
      'default/b/SKILL.md': skill('b', 'x'), 'default/b/review.md': 'Check it too.',
    });
    expect(loadSkill('a', { skillsRoot: root }).review).toEqual({ maxRetries: 0, body: 'Check it.' });
    expect(loadSkill('b', { skillsRoot: root, defaultMaxRetries: 4 }).review).toEqual({ maxRetries: 4, body: 'Check it too.' });
  });

  it('names the file and the problem when a skill is missing or malformed', () => {
    const root = skillsTree({
      'default/nameless/SKILL.md': '---\ndescription: d\n---\nbody',
      'default/bad-review/SKILL.md': skill('bad-review', 'x'), 'default/bad-review/review.md': '---\nmax_retries: many\n---\nx',
    });
    expect(() => loadSkill('absent', { skillsRoot: root })).toThrow(/no skill "absent": expected .*default\/absent\/SKILL.md/);
    expect(() => loadSkill('nameless', { skillsRoot: root })).toThrow(/nameless\/SKILL.md: front matter needs a non-empty "name"/);
    expect(() => loadSkill('bad-review', { skillsRoot: root })).toThrow(/max_retries must be a whole number/);
    expect(() => loadSkill('../etc', { skillsRoot: root })).toThrow(SkillError);
  });

  it('ships the default skills folder', () => {
    expect(() => loadSkill('definitely-not-shipped')).toThrow(/skills\/default\/definitely-not-shipped/);
  });
});
