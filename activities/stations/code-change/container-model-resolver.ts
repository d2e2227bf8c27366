import type { ModelConfiguration } from '../../../src/config/model-configuration';
import { isModelPolicyKey, type ModelPolicyKey } from '../../../src/config/model-policy-keys';
import { modelPolicyReport } from '../../../src/config/model-policy-report';
import { ModelPolicyError, resolveForExecution } from '../../../src/config/model-target-resolver';
import type { ResolvedTarget } from '../../../src/models/model-client';
import type { ProjectPropertiesPort } from '../../../src/config/project-properties-port';
import type { StationInput } from '../../../workflows/runtime/station-types';
import { stationFailure } from '../station-failure';

/**
 * The model target of a container station, resolved for this invocation (the project policy is read now, SPEC
 * 2.10). An invalid policy fails closed: the ticket blocks with `invalid_model_policy` and gets the report.
 */
export function containerModelResolver(deps: { modelConfig: ModelConfiguration; properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'> }, fallbackKey: ModelPolicyKey = 'implement_work') {
  return async (input: StationInput): Promise<ResolvedTarget> => {
    const key = input.model_key && isModelPolicyKey(input.model_key) ? input.model_key : fallbackKey;
    try {
      return await resolveForExecution({ config: deps.modelConfig, key, projectKey: input.project_key, properties: deps.properties, runsIn: 'container' }) as ResolvedTarget;
    } catch (error) {
      if (!(error instanceof ModelPolicyError)) throw error;
      const report = modelPolicyReport({ failure: error, config: deps.modelConfig, projectKey: input.project_key, ticketKey: input.ticket_key, audience: 'tracker' });
      throw stationFailure({
        code: 'invalid_model_policy', message: error.message,
        recovery: 'correct the model policy as the posted report says, then add service:retry',
        effects: [{ name: 'post_model_policy_report', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: report }, required: true }],
      });
    }
  };
}
