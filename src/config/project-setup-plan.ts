import { formatTarget, parseTarget } from './model-configuration';
import { closestPolicyKey, isModelPolicyKey } from './model-policy-keys';

/**
 * What `service project-setup` (SPEC 4.8) writes to the tracker's project properties, decided without I/O.
 *
 * Property values written:
 *   service.repos               ["owner/repo", ...]
 *   service.default_repo        "owner/repo"
 *   service.model_policy        {"<stage>": "<connection>:<model>", ...}  (canonical stage names only, no "*")
 *   service.model_default       "<connection>:<model>"
 *   service.prd_proposals_repo  "owner/repo"
 *   service.prd_proposals_path  "path/inside/the/repo" (no leading "/", no "..", no trailing "/")
 * Readers accept a target as that string or as {"connection", "model"}. Only syntax and canonical stage names are
 * checked: the deployment's connections are not known here (the same project may be served by several deployments);
 * `service get-config <PROJECT> --models` checks a project against a deployment.
 */

/** The options of `service project-setup` (SPEC 4.8), as parsed from the command line. */
export interface ProjectSetupOptions {
  defaultRepo?: string;
  repos?: string;
  model: string[];
  modelPolicy?: string;
  modelAll?: string;
  removeModel: string[];
  clearModelPolicy: boolean;
  clearModelDefault: boolean;
  prdProposalsRepo?: string;
  prdProposalsPath?: string;
}

export type Mutation = { operation: 'set'; value: unknown } | { operation: 'delete'; value: null };
export type SetupPlan = { ok: true; mutations: Record<string, Mutation> } | { ok: false; errors: string[] };

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

function stageError(stage: string): string {
  if (stage === '*') return 'there is no "*" policy key; use --model-all to set the project-wide fallback';
  const near = closestPolicyKey(stage);
  return `unknown stage "${stage}"${near ? ` (did you mean ${near}?)` : ''}`;
}

/** `stage=connection:model` -> [stage, "connection:model"]. */
function parseModelFlag(value: string, errors: string[]): [string, string] | undefined {
  const eq = value.indexOf('=');
  if (eq <= 0) {
    errors.push(`--model ${value}: expected <stage>=<connection>:<model>`);
    return undefined;
  }
  const stage = value.slice(0, eq).trim();
  const target = parseTarget(value.slice(eq + 1).trim());
  if (!isModelPolicyKey(stage)) errors.push(`--model ${value}: ${stageError(stage)}`);
  if (!target) errors.push(`--model ${value}: expected <connection>:<model> after "="`);
  return isModelPolicyKey(stage) && target ? [stage, formatTarget(target)] : undefined;
}

function policyObject(value: unknown, where: string, errors: string[]): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push(`${where}: expected a JSON object of stage to "connection:model"`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [stage, raw] of Object.entries(value)) {
    const target = parseTarget(raw);
    if (!isModelPolicyKey(stage)) errors.push(`${where}: ${stageError(stage)}`);
    else if (!target) errors.push(`${where}.${stage}: expected "connection:model" or {"connection", "model"}`);
    else out[stage] = formatTarget(target);
  }
  return out;
}

/**
 * Plans the property writes of one `project-setup` call, validating everything first so that nothing is half
 * applied. `existingPolicy` is the current service.model_policy (read only when --model merges into it).
 */
export function planProjectSetup(options: ProjectSetupOptions, existingPolicy: unknown): SetupPlan {
  const errors: string[] = [];
  const mutations: Record<string, Mutation> = {};
  const touchesPolicy = options.model.length > 0 || options.modelPolicy !== undefined || options.removeModel.length > 0;

  if (options.clearModelPolicy && touchesPolicy) errors.push('--clear-model-policy cannot be combined with --model, --model-policy or --remove-model');
  if (options.clearModelDefault && options.modelAll !== undefined) errors.push('--clear-model-default cannot be combined with --model-all');
  const modelStages = new Map<string, string>();
  for (const flag of options.model) {
    const eq = flag.indexOf('=');
    if (eq <= 0) continue; // reported by parseModelFlag below
    const [stage, target] = [flag.slice(0, eq).trim(), flag.slice(eq + 1).trim()];
    if (modelStages.has(stage) && modelStages.get(stage) !== target) errors.push(`--model ${stage}: given twice with different targets (${modelStages.get(stage)}, ${target})`);
    modelStages.set(stage, target);
  }
  for (const stage of options.removeModel) {
    if (modelStages.has(stage)) errors.push(`--remove-model ${stage} contradicts --model ${stage}=${modelStages.get(stage)}`);
  }

  if (options.defaultRepo !== undefined) {
    if (!REPO.test(options.defaultRepo)) errors.push(`--default-repo ${options.defaultRepo}: expected owner/repo`);
    else mutations['service.default_repo'] = { operation: 'set', value: options.defaultRepo };
  }
  if (options.repos !== undefined) {
    const repos = options.repos.split(',').map((r) => r.trim()).filter(Boolean);
    const bad = repos.filter((r) => !REPO.test(r));
    if (repos.length === 0 || bad.length) errors.push(`--repos ${options.repos}: expected a comma-separated list of owner/repo${bad.length ? ` (not owner/repo: ${bad.join(', ')})` : ''}`);
    else mutations['service.repos'] = { operation: 'set', value: [...new Set(repos)] };
    if (options.defaultRepo !== undefined && REPO.test(options.defaultRepo) && !bad.length && !repos.includes(options.defaultRepo)) {
      errors.push(`--default-repo ${options.defaultRepo} is not one of --repos ${repos.join(',')}: a ticket defaulting to it would be blocked`);
    }
  }

  if (options.clearModelPolicy) mutations['service.model_policy'] = { operation: 'delete', value: null };
  else if (touchesPolicy) {
    let base: Record<string, string> | undefined = {};
    if (options.modelPolicy !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(options.modelPolicy);
      } catch (error) {
        errors.push(`--model-policy: not valid JSON (${(error as Error).message})`);
      }
      base = parsed === undefined ? undefined : policyObject(parsed, '--model-policy', errors);
    } else if (existingPolicy !== undefined) {
      // Merging into what is there: a stored policy that is broken must be fixed (or replaced), not silently kept.
      const before = errors.length;
      base = policyObject(existingPolicy, 'the current service.model_policy', errors);
      if (errors.length > before) errors.push('replace the stored service.model_policy with --model-policy <JSON>, or delete it with --clear-model-policy');
    }
    const merged: Record<string, string> = { ...(base ?? {}) };
    for (const flag of options.model) {
      const entry = parseModelFlag(flag, errors);
      if (entry) merged[entry[0]] = entry[1];
    }
    for (const stage of options.removeModel) {
      if (!isModelPolicyKey(stage)) errors.push(`--remove-model ${stage}: ${stageError(stage)}`);
      else delete merged[stage];
    }
    mutations['service.model_policy'] = Object.keys(merged).length ? { operation: 'set', value: merged } : { operation: 'delete', value: null };
  }

  if (options.modelAll !== undefined) {
    const target = parseTarget(options.modelAll);
    if (!target) errors.push(`--model-all ${options.modelAll}: expected <connection>:<model>`);
    else mutations['service.model_default'] = { operation: 'set', value: formatTarget(target) };
  }
  if (options.clearModelDefault) mutations['service.model_default'] = { operation: 'delete', value: null };

  if (options.prdProposalsRepo !== undefined) {
    if (options.prdProposalsRepo === '') mutations['service.prd_proposals_repo'] = { operation: 'delete', value: null };
    else if (!REPO.test(options.prdProposalsRepo)) errors.push(`--prd-proposals-repo ${options.prdProposalsRepo}: expected owner/repo (or an empty value to remove it)`);
    else mutations['service.prd_proposals_repo'] = { operation: 'set', value: options.prdProposalsRepo };
  }
  if (options.prdProposalsPath !== undefined) {
    const path = options.prdProposalsPath.trim();
    if (path === '') mutations['service.prd_proposals_path'] = { operation: 'delete', value: null };
    else if (path.startsWith('/') || path.split('/').includes('..')) errors.push(`--prd-proposals-path ${path}: expected a path inside the repository (no leading "/", no "..")`);
    else mutations['service.prd_proposals_path'] = { operation: 'set', value: path.replace(/\/+$/, '') };
  }

  if (errors.length) return { ok: false, errors };
  if (Object.keys(mutations).length === 0) return { ok: false, errors: ['nothing to change: give at least one option (see --help)'] };
  return { ok: true, mutations };
}
