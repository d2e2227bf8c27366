/**
 * The repositories a plan names with `repo:` tags (`repo: acme/api`, `repo:acme/api`, `` repo: `acme/api` ``), in
 * the order they first appear, each once (case-insensitive). The bug's fix plan and a takeover's plan both tag their
 * steps this way; decompose_plan and the task router go by these tags. Pure.
 */
const REPO_TAG = /(?:^|[\s([*_-])repo:\s*`?([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+)`?/gim;

export function repositoriesOfPlan(markdown: string): string[] {
  const seen = new Map<string, string>();
  for (const match of markdown.matchAll(REPO_TAG)) {
    const name = match[1]!.replace(/[.]+$/, '');
    if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values()];
}

/**
 * The known repositories a plan names, spelled as the project configures them; and the tags that name none of them
 * (reported, never cloned: a model's typo must not send an agent to a repository nobody configured).
 */
export function plannedRepositories(markdown: string, known: readonly string[]): { repositories: string[]; unknown: string[] } {
  const byLower = new Map(known.map((name) => [name.toLowerCase(), name]));
  const repositories: string[] = [];
  const unknown: string[] = [];
  for (const tag of repositoriesOfPlan(markdown)) {
    const name = byLower.get(tag.toLowerCase());
    if (name) repositories.push(name);
    else unknown.push(tag);
  }
  return { repositories, unknown };
}
