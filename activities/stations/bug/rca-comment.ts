import type { RcaReport } from './rca-report';

/**
 * The root-cause analysis as the ticket shows it at rca_option_gate (REFERENCE "Bug analysis"): the root cause, the
 * numbered fix options and how to answer. Pure: the same RCA always gives the same text (and the same digest).
 */
export interface RcaCommentOptions {
  ticketKey: string;
  /** False when the reflection still had a critique after its last round; the comment says so. */
  converged: boolean;
  critique?: string | null;
  /** The version of the `rca` artifact this comment becomes (1 for the first analysis). */
  revision: number;
}

/** How much of the last critique the comment repeats: a hint for the reader, not the review itself. */
const CRITIQUE_EXCERPT = 600;

function excerpt(text: string, limit: number): string {
  const flat = text.trim().replace(/\s*\n\s*/g, ' ');
  return flat.length > limit ? `${flat.slice(0, limit - 1).trimEnd()}…` : flat;
}

function codeLocation(location: RcaReport['code_location']): string {
  const where = [`\`${location.file}\``];
  if (location.function) where.push(`in \`${location.function}\``);
  if (location.line_range) where.push(`(lines ${location.line_range})`);
  return where.join(' ');
}

/** The root-cause part alone, also given to the fix planner. */
export function rootCauseMarkdown(rca: RcaReport): string {
  const lines = [
    '### Root cause',
    '',
    rca.summary,
    '',
    `**Code location:** ${codeLocation(rca.code_location)}`,
    '',
    `**Mechanism:** ${rca.mechanism}`,
    '',
    `**From trigger to symptom:** ${rca.trigger_to_symptom}`,
    '',
    `**Confidence:** ${rca.confidence.level} (${rca.confidence.percentage}%): ${rca.confidence.rationale}`,
    '',
    `**Introduced in:** ${rca.introduced_in || 'unknown'}`,
    '',
    `**Reproducibility:** ${rca.reproducibility || 'unknown'}`,
  ];
  if (rca.hypothesis_log.length) {
    lines.push('', '**Hypotheses considered:**', '', ...rca.hypothesis_log.map((entry) => `- ${excerpt(entry, 1_000)}`));
  }
  return lines.join('\n');
}

export function fixOptionMarkdown(option: RcaReport['options'][number], number: number): string {
  return [`#### Option ${number}: ${option.title}`, '', option.description, '', `**Trade-offs:** ${option.tradeoffs}`].join('\n');
}

/**
 * Never `>option` with a digit after it: the effect layer breaks every such text with a zero-width space (so the
 * service's own comment is no command), and a reader who copied that example would send a command that does not parse.
 */
function howToAnswer(optionCount: number): string {
  const choose = optionCount === 1
    ? '- `>option N` with N = 1 (the only option) to go on with this fix option;'
    : `- \`>option N\` (N from 1 to ${optionCount}) to choose the fix option the fix plan follows;`;
  return [
    '### How to answer',
    '',
    'Reply with a comment:',
    '',
    choose,
    '- `! <feedback>` to have the analysis redone with your feedback;',
    '- `? <question>` to ask about it.',
  ].join('\n');
}

export function rcaCommentMarkdown(rca: RcaReport, opts: RcaCommentOptions): string {
  const sections = [`## Root-cause analysis for ${opts.ticketKey}${opts.revision > 1 ? ` (revision ${opts.revision})` : ''}`];
  if (!opts.converged) {
    const critique = opts.critique?.trim() ? ` Its last critique: _${excerpt(opts.critique, CRITIQUE_EXCERPT)}_` : '';
    sections.push(`⚠️ **The reflection did not converge after three rounds**: the analysis is shown as it stands, so weigh it with care.${critique}`);
  }
  sections.push(
    rootCauseMarkdown(rca),
    ['### Fix options', '', rca.options.map((option, i) => fixOptionMarkdown(option, i + 1)).join('\n\n')].join('\n'),
    '---',
    howToAnswer(rca.options.length),
  );
  return sections.join('\n\n');
}
