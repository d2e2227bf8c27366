import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export type VersioningMove =
  | { moved: true; deployment: string; from_build: string; to_build: string }
  | { moved: false; reason: string };

/**
 * After a migration of a PINNED run (Worker Deployment Versioning on, DESIGN 6): the run's new definition may need
 * the current build's code, so its pin moves to the deployment's current version with a versioning override. A run
 * that is not pinned (versioning off) or already on the current build is left as it is.
 */
export async function movePinToCurrentVersion(client: Client, namespace: string, workflowId: string): Promise<VersioningMove> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const info = description.raw.workflowExecutionInfo?.versioningInfo;
  const pinned = info?.versioningOverride?.pinned?.version ?? (info?.behavior === temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED ? info.deploymentVersion : undefined);
  if (!pinned?.deploymentName || !pinned.buildId) return { moved: false, reason: 'the run is not pinned to a worker build (worker versioning is off)' };
  const deployment = await client.workflowService.describeWorkerDeployment({ namespace, deploymentName: pinned.deploymentName });
  const current = deployment.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
  if (!current?.buildId) return { moved: false, reason: `deployment ${pinned.deploymentName} has no current version` };
  if (current.buildId === pinned.buildId) return { moved: false, reason: `the run is already on the current build ${current.buildId}` };
  await client.workflowService.updateWorkflowExecutionOptions({
    namespace,
    workflowExecution: { workflowId },
    workflowExecutionOptions: {
      versioningOverride: {
        pinned: {
          behavior: temporal.api.workflow.v1.VersioningOverride.PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED,
          version: { deploymentName: pinned.deploymentName, buildId: current.buildId },
        },
      },
    },
    updateMask: { paths: ['versioning_override'] },
  });
  return { moved: true, deployment: pinned.deploymentName, from_build: pinned.buildId, to_build: current.buildId };
}
