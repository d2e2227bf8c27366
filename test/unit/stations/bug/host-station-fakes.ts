import { createBugStations } from '../../../../activities/stations/bug-stations';
import { createTakeoverStations } from '../../../../activities/stations/takeover-stations';
import { sha256 } from '../../../../activities/stations/planning/document-stations';
import { parseModelConfiguration } from '../../../../src/config/model-configuration';
import type { ModelCallInput, ModelClient } from '../../../../src/models/model-client';
import type { TrackerComment, TrackerIssue } from '../../../../src/providers/tracker/tracker-types';
import type { ProjectRepositoriesCheck } from '../../../../workflows/project-config-types';
import type { ArtifactRecord, StationInput } from '../../../../workflows/runtime/station-types';

/**
 * In-memory fakes for the bug and takeover host stations: a model that answers scripted objects (checked against the
 * station's schema, as the real client does) and records the prompts, and a tracker holding one ticket.
 */
export interface FakeWorld {
  stations: ReturnType<typeof createBugStations> & ReturnType<typeof createTakeoverStations>;
  /** The prompts and skills the model was given, in call order. */
  calls: Array<{ system?: string; prompt: string; tools: boolean }>;
  /** The next answers of the model, in order. */
  answers: unknown[];
  issue: TrackerIssue;
  comments: TrackerComment[];
}

const env = {
  MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', allowed_models: ['planner'], capabilities: ['structured_output', 'tools'] } }),
  MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'planner' }),
};

export function fakeWorld(options: { repositories?: ProjectRepositoriesCheck; issue?: Partial<TrackerIssue> } = {}): FakeWorld {
  const calls: FakeWorld['calls'] = [];
  const answers: unknown[] = [];
  const issue: TrackerIssue = {
    id: '1', key: 'BUG-1', projectKey: 'BUG', summary: 'Export crashes', description: 'Exporting a report crashes the page.',
    labels: ['service:managed'], issueType: 'Bug', status: 'Open', created: '2026-01-01T00:00:00Z', updated: '2026-01-01T00:00:00Z',
    ...options.issue,
  };
  const comments: TrackerComment[] = [];
  const models: ModelClient = {
    async generateStructured<T>(input: ModelCallInput & { schema: import('zod').z.ZodType<T> }) {
      calls.push({ system: input.system, prompt: typeof input.prompt === 'string' ? input.prompt : JSON.stringify(input.prompt), tools: Boolean(input.tools) });
      if (!answers.length) throw new Error('the fake model has no scripted answer left');
      const object = input.schema.parse(answers.shift());
      return { object, strategy: 'native', usage: { inputTokens: 100, outputTokens: 20 }, latencySeconds: 0, attempts: [], target: 'sim:planner', source: 'deployment_default' };
    },
    async generateText() {
      throw new Error('not used');
    },
  };
  const repositories = options.repositories ?? { status: 'configured', source: 'project_properties', repositories: ['acme/api', 'acme/web'], default_repo: null };
  const deps = {
    models,
    modelConfig: parseModelConfiguration(env).config!,
    properties: { getProjectProperty: async () => undefined },
    tracker: {
      getIssue: async () => issue,
      getComments: async () => comments,
      getProjectProperty: async () => undefined,
      searchAllIssues: async () => [],
    } as never,
    repositories: async () => repositories,
  };
  const stations = { ...createBugStations(deps), ...createTakeoverStations(deps) };
  return { stations, calls, answers, issue, comments };
}

export function stationInput(station: string, extra: Partial<StationInput> = {}): StationInput {
  return {
    ticket_key: 'BUG-1', project_key: 'BUG', issue_type: 'Bug', workflow_kind: 'bug', run_id: 'run-1',
    node: station, station, visit: 1, artifacts: {}, outputs: {}, token_budget: null, ...extra,
  };
}

export function artifact(text: string, approved = false): ArtifactRecord {
  const digest = sha256(text);
  return { text, digest, version: 1, updated_at: '2026-01-01T00:00:00Z', ...(approved ? { approved: { digest, at: '2026-01-01T00:00:00Z', text } } : {}) };
}
