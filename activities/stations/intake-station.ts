import { setupInstructionsComment } from '../../workflows/runtime/blocking';
import type { StationActivity } from '../../workflows/runtime/station-types';
import type { ProjectConfigActivities } from '../project-config-activities';
import { stationFailure } from './station-activities';

/**
 * The intake station: before any AI stage runs, the project must say which repositories the service may touch
 * (SPEC 2.8). Missing or invalid configuration blocks with the setup instructions as the ticket's comment.
 */
export function createIntakeStation(check: ProjectConfigActivities['checkProjectRepositories']): { intake: StationActivity } {
  return {
    intake: async (input) => {
      let result;
      try {
        result = await check({ project_key: input.project_key });
      } catch (error) {
        throw stationFailure({
          code: 'missing_project_config',
          message: `the project configuration of ${input.project_key} could not be read: ${(error as Error).message}`,
          recovery: 'make the tracker reachable, then add service:retry',
        });
      }
      if (result.status === 'missing') {
        const what = [...result.missing, ...result.problems].join('; ');
        throw stationFailure({
          code: 'missing_project_config',
          message: `project ${input.project_key} has no usable repository configuration (${what})`,
          recovery: 'set the project property service.repos, then add service:retry',
          effects: [{
            name: 'setup_instructions',
            operation: {
              kind: 'tracker.comment', issue_key: input.ticket_key,
              body: setupInstructionsComment({ projectKey: input.project_key, missing: result.missing.length ? result.missing : result.problems, requireProjectConfig: result.require_project_config }),
            },
          }],
        });
      }
      return {
        outcome: 'configured',
        data: { ...result },
        summary: result.status === 'configured'
          ? `Project configuration found (${result.source}): ${result.repositories.join(', ')}`
          : `Project configuration not checked: ${result.reason}`,
      };
    },
  };
}
