import type { Observation } from '../../workflows/ledger/observation';

/**
 * Longest comment or review text handed to a ticket workflow. A signal is a Temporal payload (2 MB at most, and the
 * workflow carries its inbox across continue-as-new); commands are read from the beginning of a comment, so a pasted
 * multi-megabyte log is cut here, with a note, instead of failing the delivery. Identities and fingerprints are
 * computed from the provider's whole text before this, so webhook and poller deliveries still converge.
 */
export const FACT_TEXT_LIMIT = 64 * 1024;

function cut(text: string): string {
  if (text.length <= FACT_TEXT_LIMIT) return text;
  return `${text.slice(0, FACT_TEXT_LIMIT)}\n\n[… ${text.length - FACT_TEXT_LIMIT} more characters not shown to the service]`;
}

export function boundFacts<T extends { facts: Observation['facts'] }>(observation: T): T {
  const { comment, review } = observation.facts;
  if ((!comment || comment.body.length <= FACT_TEXT_LIMIT) && (!review || review.body.length <= FACT_TEXT_LIMIT)) return observation;
  return {
    ...observation,
    facts: {
      ...observation.facts,
      ...(comment ? { comment: { ...comment, body: cut(comment.body) } } : {}),
      ...(review ? { review: { ...review, body: cut(review.body) } } : {}),
    },
  };
}
