/**
 * The reviewer's verdict (REFERENCE "Skills and evaluation"): the first APPROVED or REJECTED in its answer, as a
 * whole word; neither means rejected, so a reviewer that rambles never approves by accident.
 */
export function reviewVerdict(answer: string): 'APPROVED' | 'REJECTED' {
  const match = /\b(APPROVED|REJECTED)\b/.exec(answer);
  return match?.[1] === 'APPROVED' ? 'APPROVED' : 'REJECTED';
}

/** The reviewer's feedback without the verdict word, for the rerun and the cycle file. */
export function reviewFeedback(answer: string): string {
  return answer.replace(/\b(APPROVED|REJECTED)\b[:.\s-]*/, '').trim();
}
