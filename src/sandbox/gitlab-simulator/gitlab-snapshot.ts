/**
 * Everything the GitLab simulator knows, as plain JSON, so that a sandbox restart continues where it stopped (as the
 * tracker's and GitHub's simulators do): projects with their branches, labels and pipelines, merge requests with their
 * notes and approvals, groups and their owners, and the id counter, so ids go on counting and never name two things.
 * A project names its fork parent, and a merge request its source project, by path.
 */
import type { GitLabState, SimGroup, SimLabel, SimMergeRequest, SimPipeline, SimProject } from './gitlab-simulator';

type MergeRequestJson = Omit<SimMergeRequest, 'sourceProject'> & { sourceProject?: string };

interface ProjectJson {
  id: number; path: string; defaultBranch: string; nextIid: number; resolveForbidden?: boolean; forkedFrom?: string;
  branches: Array<[string, string]>;
  labels: SimLabel[];
  mergeRequests: MergeRequestJson[];
  pipelines: SimPipeline[];
}

export interface GitLabSnapshot {
  version: 1;
  nextId: number;
  groups: Array<{ id: number; path: string; owners: string[] }>;
  /** Parents before their forks. */
  projects: ProjectJson[];
}

export class GitLabSnapshotError extends Error {
  override readonly name = 'GitLabSnapshotError';
}

function projectJson(project: SimProject): ProjectJson {
  return {
    id: project.id, path: project.path, defaultBranch: project.defaultBranch, nextIid: project.nextIid,
    ...(project.resolveForbidden ? { resolveForbidden: true } : {}),
    ...(project.forkedFrom ? { forkedFrom: project.forkedFrom.path } : {}),
    branches: [...project.branches],
    labels: [...(project.labels?.values() ?? [])],
    mergeRequests: project.mergeRequests.map(({ sourceProject, ...mr }) => ({ ...structuredClone(mr), ...(sourceProject ? { sourceProject: sourceProject.path } : {}) })),
    pipelines: structuredClone(project.pipelines),
  };
}

/** Parents first: a fork's restore needs its parent. */
function parentsFirst(projects: SimProject[]): SimProject[] {
  const depth = (project: SimProject): number => (project.forkedFrom ? 1 + depth(project.forkedFrom) : 0);
  return [...projects].sort((a, b) => depth(a) - depth(b) || a.id - b.id);
}

export function snapshotGitLab(state: GitLabState): GitLabSnapshot {
  return {
    version: 1,
    nextId: state.peekNextId(),
    groups: [...state.groups.values()].map((group) => ({ id: group.id, path: group.path, owners: [...group.owners] })),
    projects: parentsFirst([...state.projects.values()]).map(projectJson),
  };
}

/** Replaces everything the state knows with a snapshot (before the simulator serves anyone: no events fire). */
export function restoreGitLab(state: GitLabState, snapshot: GitLabSnapshot): void {
  if (snapshot.version !== 1) throw new GitLabSnapshotError(`GitLab simulator state version ${String(snapshot.version)} is not supported`);
  const copy = structuredClone(snapshot);
  state.projects.clear();
  state.groups.clear();
  for (const group of copy.groups) state.groups.set(group.path, { id: group.id, path: group.path, owners: new Set(group.owners) } satisfies SimGroup);
  for (const json of copy.projects) {
    const forkedFrom = json.forkedFrom === undefined ? undefined : state.projects.get(json.forkedFrom);
    if (json.forkedFrom !== undefined && !forkedFrom) throw new GitLabSnapshotError(`project ${json.path} is a fork of ${json.forkedFrom}, which the snapshot does not hold before it`);
    state.projects.set(json.path, {
      id: json.id, path: json.path, defaultBranch: json.defaultBranch, nextIid: json.nextIid, branches: new Map(json.branches),
      labels: new Map(json.labels.map((label) => [label.title, label])), mergeRequests: [], pipelines: json.pipelines,
      ...(json.resolveForbidden ? { resolveForbidden: true } : {}), ...(forkedFrom ? { forkedFrom } : {}),
    });
  }
  // Merge requests last: one from a fork names a project that may come after its target.
  for (const json of copy.projects) {
    const project = state.projects.get(json.path)!;
    project.mergeRequests = json.mergeRequests.map(({ sourceProject, ...mr }) => {
      const source = sourceProject === undefined ? undefined : state.projects.get(sourceProject);
      if (sourceProject !== undefined && !source) throw new GitLabSnapshotError(`merge request ${json.path}!${mr.iid} comes from ${sourceProject}, which the snapshot does not hold`);
      return { ...mr, ...(source ? { sourceProject: source } : {}) };
    });
  }
  state.continueIdsFrom(copy.nextId);
}
