import { allowedRepositories, checkTicketRepositories, repoLabels, type RepoAssignment } from '../../../src/planning-context/repo-assignment';
import type { ProjectRepositoriesCheck } from '../../../workflows/project-config-types';
import type { StationInput } from '../../../workflows/runtime/station-types';
import { stationFailure } from '../station-failure';

/** Reads the project's repository configuration (activities/project-config-activities.ts checkProjectRepositories). */
export type RepositoriesReader = (input: { project_key: string }) => Promise<ProjectRepositoriesCheck>;

/** Blocks with the assignment problem and the comment that explains it (SPEC 2.8, 3.2). */
export function repoAssignmentFailure(input: StationInput, problem: Extract<RepoAssignment, { ok: false }>) {
  return stationFailure({
    code: problem.code,
    message: problem.message,
    recovery: problem.code === 'missing_project_config'
      ? 'configure service.repos for the project as the posted comment says, then add service:retry'
      : 'fix the repository assignment as the posted comment says, then add service:retry',
    effects: [{ name: `post_${problem.code}`, operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: problem.comment }, required: true }],
  });
}

/** The repositories this ticket's items may use; blocks when the configuration is missing or a label is invalid. */
export async function ticketRepositories(read: RepositoriesReader, input: StationInput, labels: string[]): Promise<string[]> {
  const assignment = checkTicketRepositories({ projectKey: input.project_key, labels, check: await read({ project_key: input.project_key }) });
  if (!assignment.ok) throw repoAssignmentFailure(input, assignment);
  return allowedRepositories(assignment);
}

/**
 * The repositories the model may read while writing a PRD, a spec or an answer: the ticket's valid `repo:` labels,
 * else every configured repository. These stages do not need repositories, so nothing blocks here; an incomplete
 * configuration only means no repository tools.
 */
export async function readableRepositories(read: RepositoriesReader, input: StationInput, labels: string[]): Promise<string[]> {
  const check = await read({ project_key: input.project_key });
  if (check.status !== 'configured') return [];
  const assigned = repoLabels(labels).filter((repo) => check.repositories.includes(repo));
  return assigned.length ? assigned : check.repositories;
}
