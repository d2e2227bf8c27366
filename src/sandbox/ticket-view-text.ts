/** `service sandbox show`: a ticket as plain text for the terminal (comments as text, labels, pull requests, diffs). */
import type { TicketView } from './sandbox-person';
import { SANDBOX_GITLAB_PROJECT } from './sandbox-settings';
import { formatPullRequestRef } from '../../workflows/vocabulary/pull-request-ref';

const indent = (text: string, by = '    ') => text.replace(/\n+$/, '').split('\n').map((line) => (line ? `${by}${line}` : line)).join('\n');

export function ticketViewText(view: TicketView): string {
  const lines = [
    `${view.key}  ${view.summary}`,
    `  type ${view.type || '(none)'} · status ${view.status || '(none)'}`,
    `  labels: ${view.labels.length ? view.labels.join(', ') : '(none)'}`,
    ...(view.links?.length ? [`  links: ${view.links.join(', ')}`] : []),
    '',
    `Comments (${view.comments.length})`,
  ];
  for (const comment of view.comments) {
    lines.push(`  --- ${comment.author}, ${comment.created} (comment ${comment.id})`, indent(comment.text || '(empty)'), '');
  }
  if (view.comments.length === 0) lines.push('  (none)', '');
  lines.push(`Pull requests (${view.pulls.length})`);
  for (const pull of view.pulls) {
    lines.push(`  --- ${formatPullRequestRef(pull.repository, pull.number, pull.repository === SANDBOX_GITLAB_PROJECT ? 'gitlab' : 'github')} ${pull.title}`);
    lines.push(`    ${pull.draft && pull.state === 'open' ? 'draft' : pull.state} · ${pull.head} -> ${pull.base} · ${pull.url}`);
    if (pull.carries) lines.push(`    (${pull.carries})`);
    if (pull.diff !== undefined) lines.push('', pull.diff ? indent(pull.diff) : '    (no changes)');
    if (pull.diffProblem) lines.push(`    (no diff: ${pull.diffProblem})`);
    lines.push('');
  }
  if (view.pulls.length === 0) {
    const others = view.workOf ?? [];
    lines.push(others.length
      ? `  (none yet: this ticket's work is delivered in the pull requests of ${others.join(', ')}, opened when that ticket reaches implementation)`
      : '  (none yet: the service opens one when the ticket reaches implementation)');
  }
  return lines.join('\n').replace(/\n+$/, '');
}
