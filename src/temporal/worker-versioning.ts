import type { WorkerDeploymentOptions } from '@temporalio/worker';

export interface WorkerVersion {
  deploymentName: string;
  buildId: string;
}

/**
 * Worker Deployment Versioning (DESIGN 6): SERVICE_DEPLOYMENT_NAME and SERVICE_BUILD_ID, set together, make the
 * worker a version `{deployment, build id}` on which ticket workflows are PINNED. Neither set: an unversioned worker
 * (what `service dev` runs), where interpreter changes go behind patched() and recorded histories must replay.
 */
export function workerVersionFromEnv(env: NodeJS.ProcessEnv): { ok: true; version: WorkerVersion | null } | { ok: false; problem: string } {
  const deploymentName = env.SERVICE_DEPLOYMENT_NAME?.trim() || undefined;
  const buildId = env.SERVICE_BUILD_ID?.trim() || undefined;
  if (!deploymentName && !buildId) return { ok: true, version: null };
  if (!deploymentName || !buildId) {
    return { ok: false, problem: `SERVICE_DEPLOYMENT_NAME and SERVICE_BUILD_ID turn on Worker Deployment Versioning together; only ${deploymentName ? 'SERVICE_DEPLOYMENT_NAME' : 'SERVICE_BUILD_ID'} is set` };
  }
  if (deploymentName.includes('.')) return { ok: false, problem: `SERVICE_DEPLOYMENT_NAME must not contain "." (Temporal joins it with the build id by a dot), got "${deploymentName}"` };
  if (buildId.length > 255 || deploymentName.length > 255) return { ok: false, problem: 'SERVICE_DEPLOYMENT_NAME and SERVICE_BUILD_ID are at most 255 characters each' };
  return { ok: true, version: { deploymentName, buildId } };
}

/**
 * The worker's deployment options: workflows default to AUTO_UPGRADE (the short poll and the registry, whose changes
 * go behind patched()), while the versioned bundle (workflows/versioned.ts) declares ticketWorkflow PINNED.
 */
export function workerDeploymentOptions(version: WorkerVersion | null): WorkerDeploymentOptions | undefined {
  if (!version) return undefined;
  return { useWorkerVersioning: true, version: { deploymentName: version.deploymentName, buildId: version.buildId }, defaultVersioningBehavior: 'AUTO_UPGRADE' };
}
