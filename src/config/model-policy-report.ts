import type { ModelConfiguration } from './model-configuration';
import { availableModelsReport, describeSource, type Resolution, type ResolutionFailureCode, type TargetSource } from './model-target-resolver';
import { redactSecrets } from '../redaction/redact-secrets';

/**
 * The comment posted when a stage fails closed on an invalid model policy (SPEC 2.10, SPEC 7): on the ticket, and on
 * the pull request when one is active. It says what is wrong, what may be used instead, the exact command that fixes
 * it, and how to resume. Markdown; the tracker client converts it for the tracker. Pure, so the effect that posts it
 * gets the same text on every retry (its idempotency depends on that).
 */
export interface ModelPolicyReportInput {
  failure: Pick<Extract<Resolution, { ok: false }>, 'key' | 'source' | 'code' | 'problem'>;
  config: ModelConfiguration;
  projectKey: string;
  ticketKey: string;
  /** Where the comment goes: the pull request version names the ticket to retry on. */
  audience: 'tracker' | 'scmhost';
}

function fixFor(code: ResolutionFailureCode, source: TargetSource | 'none', key: string, project: string): string {
  const setup = `service project-setup ${project}`;
  switch (source) {
    case 'project_policy':
      if (code === 'unknown_keys' || code === 'invalid_policy') {
        return `Replace the project's stage overrides with valid ones: \`${setup} --model-policy '{"${key}": "<connection>:<model>"}'\`, or remove them all: \`${setup} --clear-model-policy\`.`;
      }
      return `Point the stage at an available model: \`${setup} --model ${key}=<connection>:<model>\`, or drop the override: \`${setup} --remove-model ${key}\`.`;
    case 'project_default':
      return `Set an available project default: \`${setup} --model-all <connection>:<model>\`, or add a stage override: \`${setup} --model ${key}=<connection>:<model>\`, or remove the default: \`${setup} --clear-model-default\`.`;
    case 'deployment_policy':
    case 'deployment_default':
    case 'legacy':
      return `The deployment's own configuration (${describeSource(source)}) is at fault: an operator must correct it and restart the worker. A project override avoids it meanwhile: \`${setup} --model ${key}=<connection>:<model>\`.`;
    case 'none':
      return 'This deployment has no model configured: an operator must set MODEL_CONNECTIONS and MODEL_DEFAULT (or LLM_BACKEND and LLM_MODEL) and restart the worker.';
  }
}

export function modelPolicyReport(input: ModelPolicyReportInput): string {
  const { failure, config, projectKey, ticketKey } = input;
  const resume = input.audience === 'tracker'
    ? 'Then add the label `service:retry` to this ticket to run the stage again.'
    : `Then add the label \`service:retry\` to ticket ${ticketKey} to run the stage again.`;
  return redactSecrets([
    `**Model policy error:** stage \`${failure.key}\` did not run (${describeSource(failure.source)}).`,
    '',
    `Problem: ${failure.problem}`,
    '',
    availableModelsReport(config),
    '',
    `How to fix: ${fixFor(failure.code, failure.source, failure.key, projectKey)}`,
    `Check the result first with \`service get-config ${projectKey} --models\`. ${resume}`,
  ].join('\n'));
}
