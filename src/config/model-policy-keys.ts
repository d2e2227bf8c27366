import { MODEL_POLICY_KEYS, type ModelPolicyKey } from '../../workflows/vocabulary/stage-names';

/**
 * The model policy keys (workflows/vocabulary/stage-names.ts) as configuration reads them. Unknown keys fail
 * validation (there is no `*` key), so a typo in a project policy is reported instead of silently falling back to the
 * default model.
 */
export { MODEL_POLICY_KEYS, type ModelPolicyKey };

/** The only stages that may run on a connection without `tools`; policy cannot widen this list. */
export const TOOL_FREE_KEYS: readonly ModelPolicyKey[] = ['automated_review_triage', 'proposal_review_triage', 'generate_pr_description', 'sync_pr_description'];

export function isModelPolicyKey(value: string): value is ModelPolicyKey {
  return (MODEL_POLICY_KEYS as readonly string[]).includes(value);
}

export function requiresTools(key: ModelPolicyKey): boolean {
  return !TOOL_FREE_KEYS.includes(key);
}

/**
 * Stages whose agent runs in the implementation container (they change repository files). Only the legacy mode cares:
 * there CONTAINER_LLM_MODEL overrides LLM_MODEL for them. A caller that knows better passes `runsIn` explicitly.
 */
export const CONTAINER_KEYS: readonly ModelPolicyKey[] = ['implement_work', 'implement_review_fix', 'ci_fix', 'rebase', 'update_docs'];

export function defaultExecutionPlace(key: ModelPolicyKey): 'host' | 'container' {
  return CONTAINER_KEYS.includes(key) ? 'container' : 'host';
}

/**
 * Stages whose agent runs in a container station (activities/stations/container-station.ts) on every deployment: the
 * model_key of the built-in definitions' container nodes, plus ci_analysis and implement_review_fix, which their
 * stations set themselves. Wider than CONTAINER_KEYS, which only picks the legacy default and keeps that meaning.
 */
export const CONTAINER_STATION_KEYS: readonly ModelPolicyKey[] = [
  'implement_work', 'local_code_review', 'bug_local_review', 'update_docs', 'analyze_bug', 'task_takeover_review',
  'code_review', 'rebase', 'ci_analysis', 'ci_fix', 'implement_review_fix',
];

/** Where the worker runs a stage's agent; container stations resolve their target with `runsIn: 'container'`. */
export function stationPlace(key: ModelPolicyKey): 'host' | 'container' {
  return CONTAINER_STATION_KEYS.includes(key) ? 'container' : 'host';
}

/** The artifacts a question (`?`) or a revision (`!`) can be about, by workflow. */
export type ArtifactKind =
  | 'prd' | 'spec' | 'plan' | 'tasks' // feature
  | 'bug_triage' | 'rca' | 'bug_fix_plan' // bug
  | 'takeover_triage' | 'takeover_plan' | 'takeover_review'; // existing-task takeover

const GENERATION_KEY: Record<ArtifactKind, ModelPolicyKey> = {
  prd: 'generate_prd',
  spec: 'generate_spec',
  plan: 'decompose_epics',
  tasks: 'generate_tasks',
  bug_triage: 'bug_triage',
  rca: 'analyze_bug',
  bug_fix_plan: 'plan_bug_fix',
  takeover_triage: 'task_takeover_triage',
  takeover_plan: 'task_takeover_planning',
  takeover_review: 'task_takeover_review',
};

const TAKEOVER_ARTIFACTS: readonly ArtifactKind[] = ['takeover_triage', 'takeover_plan', 'takeover_review'];

/** SPEC 2.10: revisions reuse the artifact's generation key. */
export function revisionKey(artifact: ArtifactKind): ModelPolicyKey {
  return GENERATION_KEY[artifact];
}

/** SPEC 2.10: questions resolve answer_question; about takeover artifacts, task_takeover_question. */
export function questionKey(artifact: ArtifactKind): ModelPolicyKey {
  return TAKEOVER_ARTIFACTS.includes(artifact) ? 'task_takeover_question' : 'answer_question';
}

/** Suggests the closest known key for a typo (edit distance), for error messages. */
export function closestPolicyKey(value: string): ModelPolicyKey | undefined {
  let best: { key: ModelPolicyKey; distance: number } | undefined;
  for (const key of MODEL_POLICY_KEYS) {
    const distance = editDistance(value.toLowerCase(), key);
    if (!best || distance < best.distance) best = { key, distance };
  }
  return best && best.distance <= 3 ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
