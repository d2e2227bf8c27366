import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadSkill, readSkillFolder, SkillError, type Skill } from '../skill-loading/load-skill';

/**
 * The skill a test runs, in the one skill format (skills/README.md): `--skill-dir` is the skill's own folder (it holds
 * SKILL.md), or a skills root (`default/<skill>/`, `<project>/<skill>/`) where `--project` picks the project's
 * override as the worker would. The folder's front matter must name the skill asked for.
 */
export function loadSkillUnderTest(name: string, skillDir: string, project?: string): Skill {
  const skill = existsSync(join(skillDir, 'SKILL.md'))
    ? readSkillFolder(skillDir, project?.toLowerCase() ?? 'test')
    : existsSync(join(skillDir, 'default')) || (project && existsSync(join(skillDir, project.toLowerCase())))
      ? loadSkill(name, { skillsRoot: skillDir, projectKey: project })
      : undefined;
  if (!skill) throw new SkillError(`--skill-dir ${skillDir} holds no SKILL.md (nor default/${name}/SKILL.md)`, skillDir);
  if (skill.name !== name) throw new SkillError(`${skill.path} is the skill "${skill.name}", not "${name}": check --skill and --skill-dir`, skill.path);
  return skill;
}
