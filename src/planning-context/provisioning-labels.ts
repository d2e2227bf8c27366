import { EPIC_ITEM_LABEL_PREFIX, PARENT_LABEL_PREFIX, TASK_ITEM_LABEL_PREFIX } from '../../workflows/vocabulary/labels';

/**
 * The labels of provisioned sub-tickets (REFERENCE "Tracker conventions"). The identity label names one draft item
 * of one feature, so provisioning finds what it created before (after a crash, a retry or a replay) instead of
 * creating it twice, and `service:parent:<F>` lets events on the children reach the feature's workflow.
 */

export function parentLabel(featureKey: string): string {
  return `${PARENT_LABEL_PREFIX}${featureKey}`;
}

export function epicItemLabel(featureKey: string, id: number): string {
  return `${EPIC_ITEM_LABEL_PREFIX}${featureKey}:${id}`;
}

export function taskItemLabel(featureKey: string, id: number): string {
  return `${TASK_ITEM_LABEL_PREFIX}${featureKey}:${id}`;
}

/** The feature a provisioned child belongs to, from its labels; undefined for an issue that is not one. */
export function parentOf(labels: readonly string[]): string | undefined {
  const label = labels.find((l) => l.startsWith(PARENT_LABEL_PREFIX));
  return label?.slice(PARENT_LABEL_PREFIX.length) || undefined;
}
