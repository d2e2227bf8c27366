import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * Skills (REFERENCE "Skills and evaluation"): a prompt lives in a folder with `SKILL.md` (front matter `name`,
 * `description`, then the instructions) and optionally `review.md` (front matter `max_retries`, then the reviewer's
 * instructions). `skills/<project lowercase>/<skill>/` overrides `skills/default/<skill>/` as a whole folder, so a
 * project can change a prompt without touching TypeScript.
 */
export interface Skill {
  name: string;
  description: string;
  /** The instructions: SKILL.md without its front matter. */
  body: string;
  /** Where it was found, for the timeline and error messages. */
  path: string;
  /** `default` or the project key (lower case) whose override was used. */
  scope: string;
  review?: SkillReview;
}

export interface SkillReview {
  /** 0 disables the reviewer pass. */
  maxRetries: number;
  body: string;
}

export class SkillError extends Error {
  override readonly name = 'SkillError';
  constructor(message: string, readonly path: string) {
    super(message);
  }
}

export interface LoadSkillOptions {
  /** The folder holding `default/` and per-project folders; `skills/` at the project root by default. */
  skillsRoot?: string;
  projectKey?: string;
  /** Used when review.md does not say max_retries (AUTO_REVIEW_MAX_RETRIES). */
  defaultMaxRetries?: number;
}

export function defaultSkillsRoot(): string {
  // dist/src/skill-loading or src/skill-loading: the project root is two or three levels up.
  for (const candidate of [resolve(__dirname, '..', '..'), resolve(__dirname, '..', '..', '..')]) {
    if (existsSync(join(candidate, 'skills', 'default'))) return join(candidate, 'skills');
  }
  return resolve(__dirname, '..', '..', 'skills');
}

interface FrontMatterDocument {
  attributes: Record<string, unknown>;
  body: string;
}

export function splitFrontMatter(text: string, path: string): FrontMatterDocument {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { attributes: {}, body: text.trim() };
  let attributes: unknown;
  try {
    attributes = parseYaml(match[1]!) ?? {};
  } catch (error) {
    throw new SkillError(`${path}: front matter is not valid YAML: ${(error as Error).message}`, path);
  }
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw new SkillError(`${path}: front matter must be a YAML mapping`, path);
  return { attributes: attributes as Record<string, unknown>, body: match[2]!.trim() };
}

function readReview(folder: string, defaultMaxRetries: number): SkillReview | undefined {
  const path = join(folder, 'review.md');
  if (!existsSync(path)) return undefined;
  const { attributes, body } = splitFrontMatter(readFileSync(path, 'utf8'), path);
  const raw = attributes.max_retries;
  if (raw !== undefined && (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0)) {
    throw new SkillError(`${path}: max_retries must be a whole number >= 0, got ${JSON.stringify(raw)}`, path);
  }
  return { maxRetries: raw ?? defaultMaxRetries, body };
}

/** Reads one skill folder (the one given, no override lookup): used by `test-skill --skill-dir` and by loadSkill. */
export function readSkillFolder(folder: string, scope: string, defaultMaxRetries = 3): Skill {
  const path = join(folder, 'SKILL.md');
  if (!existsSync(path)) throw new SkillError(`${folder} has no SKILL.md`, folder);
  const { attributes, body } = splitFrontMatter(readFileSync(path, 'utf8'), path);
  const { name, description } = attributes;
  if (typeof name !== 'string' || name.trim() === '') throw new SkillError(`${path}: front matter needs a non-empty "name"`, path);
  if (typeof description !== 'string' || description.trim() === '') throw new SkillError(`${path}: front matter needs a non-empty "description"`, path);
  if (body === '') throw new SkillError(`${path}: the skill has no instructions after its front matter`, path);
  return { name, description, body, path, scope, review: readReview(folder, defaultMaxRetries) };
}

/** The project's override of a skill when it has one, else the default; a SkillError names what is missing. */
export function loadSkill(skill: string, options: LoadSkillOptions = {}): Skill {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(skill)) throw new SkillError(`"${skill}" is not a skill name (lower case letters, digits, - and _)`, skill);
  const root = options.skillsRoot ?? defaultSkillsRoot();
  const defaultMaxRetries = options.defaultMaxRetries ?? 3;
  const project = options.projectKey?.toLowerCase();
  if (project && project !== 'default') {
    const override = join(root, project, skill);
    if (existsSync(join(override, 'SKILL.md'))) return readSkillFolder(override, project, defaultMaxRetries);
  }
  const folder = join(root, 'default', skill);
  if (!existsSync(join(folder, 'SKILL.md'))) {
    throw new SkillError(`no skill "${skill}": expected ${join(folder, 'SKILL.md')}${project ? ` or ${join(root, project, skill, 'SKILL.md')}` : ''}`, folder);
  }
  return readSkillFolder(folder, 'default', defaultMaxRetries);
}
