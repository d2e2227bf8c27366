import { repositoriesOfPlan } from './plan-repositories';

/**
 * The steps of a plan (the bug's fix plan, a takeover's plan) as later stations quote them: a step is a line that
 * carries a `repo:` tag, the same tags decompose_plan and the task router go by, so what a repository's Task and pull
 * request list is exactly what made the router visit that repository. Pure.
 */

/** A line without its list or heading marker (`- `, `* `, `1. `, `## `). */
function stepText(line: string): string {
  return line.trim().replace(/^(?:#{1,6}|[-*+]|\d+[.)])\s+/, '').trim();
}

/** Every tagged line of the plan, in order. */
export function planSteps(markdown: string): string[] {
  return markdown.split(/\r?\n/).filter((line) => repositoriesOfPlan(line).length > 0).map(stepText).filter(Boolean);
}

/** The tagged lines that name `repository` (case-insensitive). */
export function planStepsOfRepository(markdown: string, repository: string): string[] {
  const wanted = repository.toLowerCase();
  return markdown.split(/\r?\n/)
    .filter((line) => repositoriesOfPlan(line).some((tag) => tag.toLowerCase() === wanted))
    .map(stepText)
    .filter(Boolean);
}
