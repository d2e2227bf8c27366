/** Errors the HTTP layer turns into a status code and a JSON body `{error: {code, message}}`. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

export class TemporalUnavailableError extends Error {
  override readonly name = 'TemporalUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}
