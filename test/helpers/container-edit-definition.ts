import type { WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';

/**
 * A one-station definition around the test worker's `container_edit` station (test/helpers/station-test-worker.cjs):
 * the tests of containers inside the ticket workflow (pushes, the kill switch, shutdown) start tickets on it.
 */
export function containerEditDefinition(repository: string): WorkflowDefinition {
  return {
    apiVersion: 'service/v1', name: 'container_edit', revision: 1, entry: 'implement',
    nodes: {
      implement: { kind: 'station', station: 'container_edit', params: { repository }, on: { changed: 'done' } },
      done: { kind: 'end', result: 'completed' },
    },
  };
}
