import { describe, expect, it } from 'vitest';
import { createEffectActivities, type EffectTracker } from '../../../activities/effect-activities';
import { createLogger } from '../../../src/logging/logger';
import { CommandNeutralisationError } from '../../../src/redaction/neutralise-commands';

describe('an effect whose text would still read as a command', () => {
  it('fails terminally, with the reason for the operator, instead of being retried as an unknown outcome', async () => {
    const refused = new CommandNeutralisationError('the document as the tracker reader reads it back', 'option');
    let attempts = 0;
    const tracker = {
      findCommentByIdempotencyKey: async () => undefined,
      addComment: async () => { attempts++; throw refused; },
    } as unknown as EffectTracker;
    const effects = createEffectActivities({ tracker, logger: createLogger({ level: 'error', write: () => undefined }) });
    const result = await effects.performEffect({ idempotency_key: 'P-1:r:x:1', attempt: 1, operation: { kind: 'tracker.comment', issue_key: 'P-1', body: 'hello' } });
    expect(result).toEqual({ status: 'terminal_failure', evidence: null, error: refused.message, retry_after_ms: null });
    expect(attempts).toBe(1);
  });
});
