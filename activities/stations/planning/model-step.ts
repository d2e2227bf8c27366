import type { ToolSet } from 'ai';
import type { z } from 'zod';
import type { ModelConfiguration } from '../../../src/config/model-configuration';
import { isModelPolicyKey, type ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { modelPolicyReport } from '../../../src/config/model-policy-report';
import { ModelPolicyError, resolveForExecution } from '../../../src/config/model-target-resolver';
import { ModelCallError, type ModelClient } from '../../../src/models/model-client';
import type { ProjectPropertiesPort } from '../../../src/config/project-properties-port';
import { loadSkill, SkillError } from '../../../src/skill-loading/load-skill';
import type { StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { BUDGET_EXHAUSTED, BUDGET_RECOVERY, estimateTokens } from '../../../src/budgets/token-budget';
import { currentBudgetMeter } from '../budget-guard';
import { withHeartbeat } from '../../heartbeat';
import { stationFailure } from '../station-failure';
import { stationTraceContext } from '../station-trace';
import { parsePullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';

export interface ModelStepDeps {
  models: ModelClient;
  modelConfig: ModelConfiguration;
  /** Where the project's model policy is read, fresh for every invocation. */
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  skillsRoot?: string;
}

export interface ModelStep<T> {
  /** The station's own policy key; the definition node's model_key wins when it names a valid key. */
  key: ModelPolicyKey;
  skill: string;
  schema: z.ZodType<T>;
  prompt: string;
  /** Read-only tools (the ticket's repositories) the model may use before it answers. */
  tools?: ToolSet;
}

export interface ModelStepResult<T> {
  object: T;
  usage: NonNullable<StationResult['usage']>;
  /** `connection:model (source)`, for the summary line. */
  target: string;
}

/**
 * One structured model call of a host station: resolve the target for this invocation (project policy read now,
 * SPEC 2.10), load the skill (project override first), call the model, and map failures to what the workflow
 * should do. An invalid policy fails closed with the report as a comment intent; a bad skill or a refused
 * credential blocks; a rate limit, an outage or an answer that did not fit the schema is thrown for Temporal's retry.
 */
export async function runModelStep<T>(deps: ModelStepDeps, input: StationInput, step: ModelStep<T>): Promise<ModelStepResult<T>> {
  const key = input.model_key && isModelPolicyKey(input.model_key) ? input.model_key : step.key;
  const meter = currentBudgetMeter();
  if (!meter && input.token_budget !== null && input.token_budget <= 0) {
    throw stationFailure({ code: BUDGET_EXHAUSTED, message: `the token budget of this ticket is spent; ${input.station} did not call the model`, recovery: BUDGET_RECOVERY });
  }

  let resolved;
  try {
    resolved = await resolveForExecution({ config: deps.modelConfig, key, projectKey: input.project_key, properties: deps.properties, runsIn: 'host' });
  } catch (error) {
    if (!(error instanceof ModelPolicyError)) throw error;
    const report = modelPolicyReport({ failure: error, config: deps.modelConfig, projectKey: input.project_key, ticketKey: input.ticket_key, audience: 'tracker' });
    // SPEC 2.10: the report goes to the ticket and, when a pull request is open, to it too (a GitLab merge request
    // gets it as a note).
    const pullRequests = (input.pull_requests ?? []).map(parsePullRequestRef).filter((ref): ref is NonNullable<typeof ref> => ref !== undefined);
    const prReport = pullRequests.length > 0 ? modelPolicyReport({ failure: error, config: deps.modelConfig, projectKey: input.project_key, ticketKey: input.ticket_key, audience: 'scmhost' }) : '';
    throw stationFailure({
      code: 'invalid_model_policy',
      message: error.message,
      recovery: 'correct the model policy as the posted report says, then add service:retry',
      effects: [
        { name: 'post_model_policy_report', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: report }, required: true },
        ...pullRequests.map(({ repository, number }, i) => ({
          name: `post_model_policy_report_pr_${i + 1}`, operation: { kind: 'scmhost.pr_comment' as const, repository, number, body: prReport },
        })),
      ],
    });
  }

  let skill;
  try {
    skill = loadSkill(step.skill, { projectKey: input.project_key, skillsRoot: deps.skillsRoot });
  } catch (error) {
    if (!(error instanceof SkillError)) throw error;
    throw stationFailure({ code: 'invalid_skill', message: error.message, recovery: `fix ${error.path}, then add service:retry` });
  }

  // Checked before every call: one that would cross a budget is refused here and the model is never asked.
  await meter?.allowance(estimateTokens(skill.body, step.prompt));
  try {
    const result = await withHeartbeat((abortSignal) => deps.models.generateStructured({ resolved, system: skill.body, prompt: step.prompt, schema: step.schema, tools: step.tools, abortSignal, trace: stationTraceContext(input) }));
    meter?.record(result.usage.inputTokens + result.usage.outputTokens);
    return {
      object: result.object,
      usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens, model: result.target },
      target: `${result.target} (${result.source}, skill ${skill.scope}/${skill.name})`,
    };
  } catch (error) {
    if (error instanceof ModelCallError && !error.retryable) {
      throw stationFailure({ code: 'model_call_failed', message: error.message, recovery: 'check the connection\'s credentials and limits, then add service:retry' });
    }
    throw error;
  }
}
