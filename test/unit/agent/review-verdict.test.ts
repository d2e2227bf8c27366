import { describe, expect, it } from 'vitest';
import { reviewFeedback, reviewVerdict } from '../../../src/agent/review-verdict';

describe('reviewVerdict', () => {
  it('takes the first APPROVED or REJECTED as a whole word, and rejects when there is neither', () => {
    expect(reviewVerdict('APPROVED. Looks good.')).toBe('APPROVED');
    expect(reviewVerdict('REJECTED: fix it. Once fixed it would be APPROVED')).toBe('REJECTED');
    expect(reviewVerdict('Fine by me, but NOT_APPROVED_YET')).toBe('REJECTED');
    expect(reviewVerdict('looks approved to me')).toBe('REJECTED');
    expect(reviewVerdict('')).toBe('REJECTED');
  });

  it('keeps the feedback without the verdict word', () => {
    expect(reviewFeedback('REJECTED: the notes do not say why.')).toBe('the notes do not say why.');
  });
});
