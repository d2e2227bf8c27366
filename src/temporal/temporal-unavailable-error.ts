/** Temporal could not be reached in time: a webhook answers 503 so the provider retries, and the poller catches up. */
export class TemporalUnavailableError extends Error {
  override readonly name = 'TemporalUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
