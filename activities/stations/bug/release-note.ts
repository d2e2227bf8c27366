import type { StationInput } from '../../../workflows/runtime/station-types';
import { analysisOf, fixPlanOf, type FixPlanData } from './flow-data';
import type { RcaReport } from './rca-report';

/**
 * What the bug's pull request and its post-merge summary say about the fix (REFERENCE "Bug analysis": a release note
 * with component, fix, root cause and impact). The fix plan writes the note; a field it left empty (or a plan output
 * that is gone) falls back to the analysis, so the note is never blank while an RCA exists. Pure.
 */
export type ReleaseNote = FixPlanData['release_note'];

export function codeLocationText(location: RcaReport['code_location']): string {
  return [`\`${location.file}\``, location.function ? `in \`${location.function}\`` : '', location.line_range ? `(lines ${location.line_range})` : '']
    .filter(Boolean).join(' ');
}

export function releaseNoteOf(input: Pick<StationInput, 'outputs'>): ReleaseNote | undefined {
  const plan = fixPlanOf(input);
  const rca = analysisOf(input)?.rca;
  const chosen = rca ? rca.options[(plan?.option ?? 1) - 1] ?? rca.options[0] : undefined;
  const fallback: ReleaseNote | undefined = rca && {
    component: rca.code_location.file,
    fix: chosen?.title ?? '',
    root_cause: rca.summary,
    impact: rca.trigger_to_symptom,
  };
  const note = plan?.release_note;
  if (!note && !fallback) return undefined;
  const field = (name: keyof ReleaseNote) => (typeof note?.[name] === 'string' && note[name].trim() ? note[name].trim() : fallback?.[name] ?? '');
  return { component: field('component'), fix: field('fix'), root_cause: field('root_cause'), impact: field('impact') };
}

/** The note as Markdown bullet lines, leaving out what is empty. */
export function releaseNoteLines(note: ReleaseNote): string[] {
  return ([['Component', note.component], ['Fix', note.fix], ['Root cause', note.root_cause], ['Impact', note.impact]] as const)
    .filter(([, value]) => value.trim())
    .map(([name, value]) => `- **${name}:** ${value.trim()}`);
}

/** The root cause as the pull request shows it: summary, code location, mechanism. */
export function rootCauseLines(rca: RcaReport): string[] {
  return [rca.summary.trim(), '', `- **Code location:** ${codeLocationText(rca.code_location)}`, `- **Mechanism:** ${rca.mechanism.trim()}`];
}
