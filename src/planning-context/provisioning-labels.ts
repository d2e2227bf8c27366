/**
 * The labels of provisioned sub-tickets (REFERENCE "Tracker conventions"). The identity label names one draft item
 * of one feature, so provisioning finds what it created before (after a crash, a retry or a replay) instead of
 * creating it twice, and `service:parent:<F>` lets events on the children reach the feature's workflow.
 */
export const MANAGED_LABEL = 'service:managed';

export function parentLabel(featureKey: string): string {
  return `service:parent:${featureKey}`;
}

export function epicItemLabel(featureKey: string, id: number): string {
  return `service:epic-item:${featureKey}:${id}`;
}

export function taskItemLabel(featureKey: string, id: number): string {
  return `service:task-item:${featureKey}:${id}`;
}

/** The feature a provisioned child belongs to, from its labels; undefined for an issue that is not one. */
export function parentOf(labels: readonly string[]): string | undefined {
  const label = labels.find((l) => l.startsWith('service:parent:'));
  return label?.slice('service:parent:'.length) || undefined;
}
