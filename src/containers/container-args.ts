import { CONTAINER_AGENT_PATH, CONTAINER_RUN_DIR, CONTAINER_WORKSPACE } from '../agent/agent-task';

/**
 * The `podman run` command line of a task container, as a pure function so the limits, labels and isolation can be
 * checked without podman. Isolation: no network unless the repository opted in to egress, no capabilities, no new
 * privileges, a read-only agent, and only the workspace and the run folder (task, proxy socket, result) mounted.
 */
export interface ContainerSpec {
  name: string;
  image: string;
  /** e.g. `4g`. */
  memory: string;
  cpus: number;
  pids: number;
  labels: Record<string, string>;
  workspaceDir: string;
  runDir: string;
  agentPath: string;
  /** Opt-in network for repositories whose tests download packages (CONTAINER_EGRESS). */
  egress: boolean;
  /** Non-secret variables only; the caller must never pass a credential here. */
  env?: Record<string, string>;
  command: string[];
  /** podman's OCI runtime: runc by default (crun fails on hybrid cgroup hosts). */
  runtime?: string;
}

export const CONTAINER_LABEL = 'service.container';

export function containerRunArgs(spec: ContainerSpec): string[] {
  const args = ['run', '--name', spec.name, '--runtime', spec.runtime ?? 'runc'];
  args.push('--network', spec.egress ? 'slirp4netns:allow_host_loopback=false' : 'none');
  args.push('--memory', spec.memory, '--cpus', String(spec.cpus), '--pids-limit', String(spec.pids));
  args.push('--cap-drop', 'all', '--security-opt', 'no-new-privileges');
  args.push('--label', `${CONTAINER_LABEL}=true`);
  for (const [key, value] of Object.entries(spec.labels).sort(([a], [b]) => a.localeCompare(b))) args.push('--label', `${key}=${value}`);
  args.push('-v', `${spec.workspaceDir}:${CONTAINER_WORKSPACE}:rw`, '-v', `${spec.runDir}:${CONTAINER_RUN_DIR}:rw`, '-v', `${spec.agentPath}:${CONTAINER_AGENT_PATH}:ro`);
  args.push('--workdir', CONTAINER_WORKSPACE);
  for (const [key, value] of Object.entries(spec.env ?? {})) args.push('--env', `${key}=${value}`);
  args.push(spec.image, ...spec.command);
  return args;
}

/** A container name podman accepts, unique per run, that still says whose it is. */
export function containerName(ticketKey: string, runId: string, node: string, suffix: string): string {
  const clean = (value: string) => value.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `service-${clean(ticketKey)}-${clean(node)}-${clean(runId).slice(0, 12)}-${clean(suffix)}`.slice(0, 120);
}
