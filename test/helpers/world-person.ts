import type { GitLabSimulator } from '../../src/sandbox/gitlab-simulator/gitlab-simulator';
import type { ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';

/** What people and CI do on the source hosts of a world, each with its webhook, on the ticket's open change request. */
export interface WorldPerson {
  check(repository: string, key: string, name: string, conclusion: string, summary?: string): void;
  review(repository: string, key: string, state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED', body: string, comments?: Array<{ path: string; line: number; body: string }>): void;
  merge(repository: string, key: string): void;
  /** A comment on the ticket's pull request (e.g. `/service rebase`). */
  comment(repository: string, key: string, body: string): void;
  /** GitLab CI finishes a pipeline for the head of the ticket's merge request. */
  pipeline(project: string, key: string, status: 'success' | 'failed' | 'running'): void;
  /** A reviewer's note on the ticket's merge request in a GitLab project. */
  mergeRequestNote(project: string, key: string, body: string): void;
  /** A reviewer starts a thread on the ticket's merge request (on a line of the diff with `at`); its discussion id. */
  mergeRequestThread(project: string, key: string, body: string, at?: { path: string; line: number }): string;
  /** A reviewer's reply in a thread of the ticket's merge request. */
  mergeRequestReply(project: string, key: string, discussionId: string, body: string): void;
  /** A reviewer approves the ticket's merge request in a GitLab project (GitLab's approval, its merge request hook). */
  mergeRequestApprove(project: string, key: string): void;
  /** Someone merges the ticket's merge request in a GitLab project. */
  mergeRequestMerge(project: string, key: string): void;
}

const REVIEWER = 'octo-reviewer';

export function worldPerson(scm: ScmhostSimulator, gitlab: GitLabSimulator): WorldPerson {
  const repoOf = (repository: string) => {
    const [owner, name] = repository.split('/');
    return scm.state.repo(owner!, name!);
  };
  const openPull = (repository: string, key: string) => {
    const pull = scm.state.pullsOf(repoOf(repository)).find((p) => p.headRef === `service/${key.toLowerCase()}` && p.state === 'open');
    if (!pull) throw new Error(`${key} has no open pull request in ${repository}`);
    return pull;
  };
  const openMergeRequest = (project: string, key: string) => {
    const mr = gitlab.state.project(project).mergeRequests.find((m) => m.sourceBranch === `service/${key.toLowerCase()}` && m.state === 'opened');
    if (!mr) throw new Error(`${key} has no open merge request in ${project}`);
    return mr;
  };
  return {
    check: (repository, key, name, conclusion, summary) => {
      scm.state.reportCheckRun(repoOf(repository), { name, headSha: openPull(repository, key).headSha, conclusion, summary: summary ?? `${name}: ${conclusion}` });
    },
    review: (repository, key, state, body, comments) => {
      scm.state.submitReview(repoOf(repository), openPull(repository, key).number, { state, body, comments }, scm.state.user(REVIEWER));
    },
    comment: (repository, key, body) => {
      scm.state.addIssueComment(repoOf(repository), openPull(repository, key).number, body, scm.state.user(REVIEWER));
    },
    merge: (repository, key) => {
      scm.state.mergePull(repoOf(repository), openPull(repository, key).number, scm.state.user(REVIEWER));
    },
    pipeline: (project, key, status) => {
      const sim = gitlab.state.project(project);
      const mr = openMergeRequest(project, key);
      gitlab.state.reportPipeline(sim, mr.sourceBranch, sim.branches.get(mr.sourceBranch)!, status);
    },
    mergeRequestNote: (project, key, body) => {
      gitlab.state.addNote(openMergeRequest(project, key), body, REVIEWER, gitlab.state.project(project));
    },
    mergeRequestThread: (project, key, body, at) => {
      const sim = gitlab.state.project(project);
      return gitlab.state.startDiscussion(openMergeRequest(project, key), body, REVIEWER, { project: sim, ...(at ? { position: at } : {}) }).discussionId;
    },
    mergeRequestReply: (project, key, discussionId, body) => {
      gitlab.state.replyInDiscussion(openMergeRequest(project, key), discussionId, body, REVIEWER, gitlab.state.project(project));
    },
    mergeRequestApprove: (project, key) => {
      gitlab.state.approve(gitlab.state.project(project), openMergeRequest(project, key), REVIEWER);
    },
    mergeRequestMerge: (project, key) => {
      gitlab.state.merge(gitlab.state.project(project), openMergeRequest(project, key));
    },
  };
}
