import { setupInstructionsComment } from '../../workflows/runtime/blocking';
import type { ProjectRepositoriesCheck } from '../../workflows/project-config-types';
import { REPO_LABEL_PREFIX } from '../../workflows/vocabulary/labels';

/**
 * Repository assignment (SPEC 2.8): a `repo:<owner>/<repo>` label on the ticket, or the repo of a draft item, must
 * name one of the project's configured repositories (service.repos, or the fallback variables where project
 * configuration is not required). A missing or invalid assignment blocks; no repository is picked implicitly. Pure:
 * the caller reads the configuration (activities/project-config-activities.ts) and the labels.
 */

export type RepoAssignmentProblem =
  | { code: 'missing_project_config'; message: string; comment: string }
  | { code: 'invalid_repo_assignment'; message: string; comment: string };

export type RepoAssignment =
  | { ok: true; repositories: string[]; assigned: string[]; default_repo: string | null }
  | ({ ok: false } & RepoAssignmentProblem);

/** The `repo:` labels of a ticket, as `owner/repo`. */
export function repoLabels(labels: readonly string[]): string[] {
  return labels.filter((label) => label.startsWith(REPO_LABEL_PREFIX)).map((label) => label.slice(REPO_LABEL_PREFIX.length));
}

function missingConfig(projectKey: string, check: Extract<ProjectRepositoriesCheck, { status: 'missing' }>): RepoAssignment {
  const what = [...check.missing, ...check.problems].join('; ') || 'no repositories';
  return {
    ok: false,
    code: 'missing_project_config',
    message: `project ${projectKey} has no usable repository configuration (${what})`,
    comment: [
      setupInstructionsComment({ projectKey, missing: check.missing.length ? check.missing : ['service.repos'], requireProjectConfig: check.require_project_config }),
      ...(check.problems.length ? ['', `Problems found: ${check.problems.join('; ')}`] : []),
    ].join('\n'),
  };
}

function invalid(message: string, lines: string[], repositories: string[], fix: string): RepoAssignment {
  return {
    ok: false,
    code: 'invalid_repo_assignment',
    message,
    comment: [
      `🚫 **Repository assignment needed**: ${message}.`,
      '',
      ...lines.map((line) => `- ${line}`),
      '',
      `Configured repositories: ${repositories.map((r) => `\`${r}\``).join(', ')}.`,
      fix,
      'Then add the label `service:retry` to this ticket to resume.',
    ].join('\n'),
  };
}

/**
 * The ticket's own assignment: every `repo:` label must be a configured repository. Without labels the ticket may
 * use any configured repository (each draft item then names its own, see checkItemRepositories).
 */
export function checkTicketRepositories(input: { projectKey: string; labels: readonly string[]; check: ProjectRepositoriesCheck }): RepoAssignment {
  const { check } = input;
  if (check.status === 'unchecked') {
    return { ok: false, code: 'missing_project_config', message: `repository configuration cannot be read: ${check.reason}`, comment: `🚫 **Setup needed**: the repository configuration of project \`${input.projectKey}\` cannot be read (${check.reason}). Fix it, then add the label \`service:retry\` to resume.` };
  }
  if (check.status === 'missing') return missingConfig(input.projectKey, check);
  const assigned = repoLabels(input.labels);
  const unknown = assigned.filter((repo) => !check.repositories.includes(repo));
  if (unknown.length) {
    return invalid(
      `the ticket names ${unknown.length === 1 ? 'a repository' : 'repositories'} the project does not configure`,
      unknown.map((repo) => `label \`${REPO_LABEL_PREFIX}${repo}\``),
      check.repositories,
      `Replace the label with \`${REPO_LABEL_PREFIX}<owner>/<repo>\` of a configured repository, or add the repository to \`service.repos\`.`,
    );
  }
  return { ok: true, repositories: check.repositories, assigned, default_repo: check.default_repo };
}

/** The repositories a ticket's items may use: its `repo:` labels when it has any, else all configured ones. */
export function allowedRepositories(assignment: Extract<RepoAssignment, { ok: true }>): string[] {
  return [...new Set(assignment.assigned.length ? assignment.assigned : assignment.repositories)];
}

/** Every item that will be created needs a repository among the allowed ones. */
export function checkItemRepositories(input: { allowed: readonly string[]; items: ReadonlyArray<{ id: number; summary: string; repo: string | null; excluded: boolean }>; noun: 'epic' | 'task' }): RepoAssignment | null {
  const bad = input.items.filter((item) => !item.excluded && (!item.repo || !input.allowed.includes(item.repo)));
  if (!bad.length) return null;
  return invalid(
    `${bad.length} draft ${input.noun}${bad.length === 1 ? ' has' : 's have'} no valid repository`,
    bad.map((item) => `item ${item.id} "${item.summary}": ${item.repo ? `\`${item.repo}\` is not allowed` : 'no repository'}`),
    [...input.allowed],
    `Fix it at the gate with \`/service update <n> repo=<owner>/<repo>\` or leave the item out with \`/service exclude <n>\`.`,
  );
}
