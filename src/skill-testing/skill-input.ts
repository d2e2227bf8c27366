import { z } from 'zod';
import { readYamlDocument } from './yaml-file';

/**
 * A `test-skill run` input (REFERENCE "Skills and evaluation"): the ticket the skill works on, the repositories it
 * may read, the request and the named inputs (description, comments, an earlier artifact...) the stage would hand it.
 */
export const skillInputSchema = z.object({
  ticket_key: z.string({ error: 'required: the ticket key, e.g. PROJ-123' }).regex(/^[A-Za-z][A-Za-z0-9_]*-\d+$/, 'expected a ticket key like PROJ-123'),
  title: z.string({ error: 'required: the ticket summary' }).trim().min(1, 'must not be empty'),
  available_repos: z.array(z.string().trim().min(1, 'a repository name must not be empty'), { error: 'expected a list of repository names (owner/repo)' }).default([]),
  prompt: z.string({ error: 'required: what the skill is asked to do' }).trim().min(1, 'must not be empty'),
  prompt_inputs: z.record(z.string(), z.unknown(), { error: 'expected a mapping of input name to text' }).default({}),
}).strict();

export type SkillInput = z.infer<typeof skillInputSchema>;

export function loadSkillInput(file: string): SkillInput {
  return readYamlDocument(file, skillInputSchema);
}
