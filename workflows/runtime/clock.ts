/** Workflow time as ISO text: deterministic on replay (the SDK's Date is the time of the current activation). */
export function nowIso(): string {
  return new Date().toISOString();
}
