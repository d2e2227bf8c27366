import type { StationNode } from '../built-in-definitions/definition-types';
import type { Observation } from '../ledger/observation';
import { callStation } from './station-call';
import { stationTrigger } from './station-trigger';
import type { StationInput } from './station-types';
import type { StationAttempt } from './ticket-state';
import { countSpend, spendOf } from './token-spend';
import { runStoppable, stopTriggerOf } from './kill-switch';
import { TRIGGER } from '../vocabulary/command-words';
import type { StepEvent } from './step-types';
import { nowIso } from './clock';
import type { DriverContext } from './driver-context';
import type { StationRecords } from './station-records';
import type { InHand } from './action-performer';

/**
 * Runs stations as activities the kill switch can cancel, and hands what they ended with to the step function
 * (`decide`) as an event.
 */
export function createStationRunner(
  context: Pick<DriverContext, 'input' | 'state' | 'settings' | 'runtime' | 'artifacts' | 'outputs' | 'ticketKey'>,
  { recordAttempt, stopCounts, decide }: {
    recordAttempt: StationRecords['recordAttempt'];
    /** Whether a stop request that arrived during the station cancels it (command-trust.ts, on the position now). */
    stopCounts: (request: Observation) => Promise<boolean>;
    decide: (event: StepEvent, inHand?: InHand) => Promise<void>;
  },
) {
  const { input, state, settings, runtime, artifacts, outputs, ticketKey } = context;

  /** The kill switch: stop requests that arrived while a station runs, for the station's watcher. */
  const stopRequests: Observation[] = [];
  let stationRunning = false;
  /** service:stop or `/service stop`: an operator action; the ticket blocks with `stopped` until service:retry. */
  const stopTicket = async (observation: Observation, cancelled: string | null) => {
    const viaLabel = stopTriggerOf(observation) === TRIGGER.stopLabel;
    const by = observation.facts.comment?.author ?? observation.facts.actor_ids?.[0] ?? observation.facts.sender ?? 'someone';
    await decide({ type: 'stop', by, via_label: viaLabel, cancelled, delivery_identity: observation.delivery_identity });
  };

  const runStation = async (node: string, visitNo: number, spec: StationNode, params: StationNode['params']) => {
    const started = nowIso();
    const stationInput: StationInput = {
      ticket_key: ticketKey, project_key: input.project_key, issue_type: input.issue_type, workflow_kind: input.workflow_kind,
      run_id: state.run_id, node, station: spec.station, visit: visitNo, model_key: spec.model_key, params,
      artifacts, outputs, request: runtime.request ?? undefined, token_budget: null, spend: spendOf(runtime), pull_requests: [...state.pull_requests],
      ci: { skipped_checks: [...state.checkpoint.ci_skipped_checks], fix_attempts: state.checkpoint.ci_fix_attempts },
      trigger: stationTrigger(runtime, state.last_observation), retry_count: state.retry_count,
    };
    stationRunning = true;
    const run = await runStoppable(() => callStation(spec, stationInput, {
      timeoutSeconds: settings.station_timeout_seconds, heartbeatSeconds: settings.station_heartbeat_seconds,
      summary: `${spec.station} for ${ticketKey} (${node}, visit ${visitNo})`,
    }), stopRequests, stopCounts).finally(() => {
      stationRunning = false;
    });
    const base: StationAttempt = {
      node, station: spec.station, visit: visitNo, started_at: started, finished_at: nowIso(), status: 'succeeded',
      outcome: null, summary: null, error: null, effects: 0, usage: null,
    };
    if (run.stoppedBy && (!run.value || run.value.type === 'error')) {
      recordAttempt({ ...base, status: 'stopped', error: 'cancelled by the kill switch' });
      return stopTicket(run.stoppedBy, spec.station);
    }
    const outcome = run.value!;
    if (outcome.type === 'failure') {
      const { failure } = outcome;
      countSpend(runtime, spec.station, failure.usage);
      recordAttempt({ ...base, status: failure.code === 'station_not_available' ? 'not_available' : 'failed', error: `${failure.code}: ${failure.message}`, effects: failure.effects?.length ?? 0 });
      return decide({ type: 'station_failed', node, code: failure.code, message: failure.message, intents: failure.effects ?? [] });
    }
    if (outcome.type === 'invalid') {
      recordAttempt({ ...base, status: 'invalid', error: outcome.message });
      return decide({ type: 'station_failed', node, code: 'invalid_station_result', message: `${spec.station} returned an invalid result: ${outcome.message}`, intents: [] });
    }
    if (outcome.type === 'error') {
      recordAttempt({ ...base, status: 'failed', error: outcome.message });
      return decide({ type: 'station_failed', node, code: 'station_failed', message: `${spec.station} failed after its retries: ${outcome.message}`, intents: [] });
    }
    const { result } = outcome;
    return decide({ type: 'station_returned', node, station: spec.station, outcome: result.outcome, intents: result.effects ?? [] }, { returned: { spec, result, base } });
  };

  return { runStation, stopTicket, stopRequests, isStationRunning: () => stationRunning };
}

export type StationRunner = ReturnType<typeof createStationRunner>;
