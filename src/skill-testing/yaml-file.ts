import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';

/** A test-skill input or criteria file that cannot be used; the message names the file and the field. */
export class SkillTestFileError extends Error {
  override readonly name = 'SkillTestFileError';
  constructor(message: string, readonly file: string) {
    super(message);
  }
}

/** `path.to.field: message` for each zod issue, so an operator knows which line of the YAML to change. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(the whole file)'}: ${issue.message}`);
}

/** Parses YAML text against a schema; every problem is one line `<file>: <field>: <message>`. */
export function parseYamlDocument<T>(text: string, file: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new SkillTestFileError(`${file}: not valid YAML: ${(error as Error).message.split('\n')[0]}`, file);
  }
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new SkillTestFileError(describeIssues(parsed.error.issues).map((line) => `${file}: ${line}`).join('\n'), file);
  return parsed.data;
}

export function readYamlDocument<T>(file: string, schema: z.ZodType<T>): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SkillTestFileError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, file);
  }
  return parseYamlDocument(text, file, schema);
}
