import type { Observation, TicketWorkflowInput, TicketWorkflowSettings } from '../ledger/observation';
import { DEFAULT_SETTINGS } from './ticket-state';

/** The settings a ticket run uses: the deployment's, or the defaults. */
export function settingsOf(input: TicketWorkflowInput): Required<TicketWorkflowSettings> {
  const given = input.settings ?? {};
  return {
    effect_timeout_seconds: given.effect_timeout_seconds ?? DEFAULT_SETTINGS.effect_timeout_seconds,
    history_event_limit: given.history_event_limit ?? DEFAULT_SETTINGS.history_event_limit,
    retention: { ...DEFAULT_SETTINGS.retention, ...given.retention },
    station_timeout_seconds: given.station_timeout_seconds ?? 900,
    station_heartbeat_seconds: given.station_heartbeat_seconds ?? 30,
    state_byte_limit: given.state_byte_limit ?? 1_500_000,
  };
}

/** Comment text kept for a queued command: commands need their beginning, feedback rarely runs longer. */
const INBOX_TEXT_LIMIT = 16_000;

/** A queued observation keeps the beginning of long comment text, so that the inbox (state) stays small. */
export function forInbox(observation: Observation): Observation {
  const comment = observation.facts.comment;
  const review = observation.facts.review;
  if ((!comment || comment.body.length <= INBOX_TEXT_LIMIT) && (!review || review.body.length <= INBOX_TEXT_LIMIT)) return observation;
  return {
    ...observation,
    facts: {
      ...observation.facts,
      ...(comment ? { comment: { ...comment, body: comment.body.slice(0, INBOX_TEXT_LIMIT) } } : {}),
      ...(review ? { review: { ...review, body: review.body.slice(0, INBOX_TEXT_LIMIT) } } : {}),
    },
  };
}
