import { stringify as toYaml } from 'yaml';
import type { RepositoryFolder } from './repository-folders';
import type { SkillInput } from './skill-input';

export interface SkillPromptInput {
  input: SkillInput;
  repositories: readonly RepositoryFolder[];
  project?: string;
  /** The project's references (`--references FILE`), as `service.references` would give them. */
  references?: string;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value.trim() : toYaml(value).trim();
}

/**
 * The user message of a skill test: the ticket, the request, each named input as its own section, the references
 * and which repositories the read-only tools can open. The skill's SKILL.md is the system prompt; nothing else is
 * added to it, so the test measures the skill as the stages use it.
 */
export function buildSkillPrompt(options: SkillPromptInput): string {
  const { input } = options;
  const sections = [
    `Ticket ${input.ticket_key}${options.project ? ` (project ${options.project})` : ''}: ${input.title}`,
    `## Request\n\n${input.prompt.trim()}`,
    ...Object.entries(input.prompt_inputs).map(([name, value]) => `## ${name}\n\n${asText(value)}`),
  ];
  if (options.references?.trim()) sections.push(`## Project references\n\n${options.references.trim()}`);
  const readable = options.repositories.filter((r) => r.folder !== null).map((r) => r.name);
  const missing = options.repositories.filter((r) => r.folder === null).map((r) => r.name);
  const repoLines = [
    readable.length ? `You can read these repositories with list_files, read_file and search_files (read only): ${readable.join(', ')}.` : 'No repository is available to read.',
    ...(missing.length ? [`Named by the ticket but not available here: ${missing.join(', ')}.`] : []),
    'Write every document you produce with write_file (paths relative to the output folder), then answer with a short summary.',
  ];
  sections.push(`## Repositories and output\n\n${repoLines.join('\n')}`);
  return sections.join('\n\n');
}
