import type { Observation, ObservationSource } from '../../workflows/ledger/observation';

/** What routing to a ticket can use, in order: the `[KEY]` in a title, the `service/<key>` branch, the PR index. */
export interface RoutingHints {
  title?: string;
  branch?: string;
  /** `owner/repo#12` or `group/project!12`: looked up in the PR-to-ticket index the workflows keep. */
  pull_request_ref?: string;
}

export type UnroutedObservation = Omit<Observation, 'ticket_key'>;

export type NormalisedDelivery =
  | { kind: 'observation'; observation: UnroutedObservation; routing: RoutingHints }
  | { kind: 'unsupported'; reason: string };

export interface NormaliseOptions {
  source?: ObservationSource;
  receivedAt?: Date;
}

export function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}
