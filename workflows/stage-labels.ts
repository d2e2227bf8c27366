/**
 * The service's stage labels (SPEC 3.1, REFERENCE "Tracker conventions"): a ticket carries exactly one of them at a
 * time, besides `service:managed`, `service:yolo`, `service:blocked`, `service:retry` and `repo:` labels. Pure, so
 * the workflow and the station activities compute the same label change.
 */
export const STAGE_LABELS = [
  'service:prd-pending', 'service:prd-approved',
  'service:spec-pending', 'service:spec-approved',
  'service:plan-pending', 'service:plan-approved',
  'service:task-pending', 'service:task-approved',
  'service:triage-pending', 'service:rca-pending', 'service:task-triage-pending',
] as const;

export type StageLabel = (typeof STAGE_LABELS)[number];

/** The one labels edit that makes `label` the ticket's only stage label (set-like: repeating it changes nothing). */
export function stageLabelChange(label: StageLabel): { add: string[]; remove: string[] } {
  return { add: [label], remove: STAGE_LABELS.filter((other) => other !== label) };
}
