/**
 * The user message of a planning station: the ticket, what was approved before, the project's references and
 * repositories, and what a person asked for. The instructions themselves come from the skill (the system message);
 * this only lays out the material under plain headings. Pure, so the same input always gives the same prompt.
 */
export interface PromptSection {
  title: string;
  body: string;
}

/** Per section; the whole prompt stays well inside any model's context even with long comment threads. */
export const SECTION_LIMIT = 40_000;

function bounded(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n\n[... ${text.length - limit} more characters left out ...]`;
}

export function composePrompt(sections: ReadonlyArray<PromptSection | null | undefined>, limit = SECTION_LIMIT): string {
  return sections
    .filter((section): section is PromptSection => Boolean(section && section.body.trim()))
    .map((section) => `## ${section.title}\n\n${bounded(section.body.trim(), limit)}`)
    .join('\n\n');
}

export interface TicketMaterial {
  key: string;
  summary: string;
  issueType: string;
  description: string;
  labels: string[];
  /** People's comments, oldest first; the service's own comments (the posted artifacts) are left out. */
  comments: Array<{ author?: string; created: string; body: string }>;
}

export function ticketSections(ticket: TicketMaterial): PromptSection[] {
  return [
    { title: `Ticket ${ticket.key} (${ticket.issueType || 'issue'})`, body: `Summary: ${ticket.summary}\nLabels: ${ticket.labels.join(', ') || 'none'}` },
    { title: 'Description', body: ticket.description || '(no description)' },
    {
      title: 'Comments',
      // The newest comments matter most: when the thread is long, the oldest are the ones left out.
      body: ticket.comments.slice(-50).map((c) => `**${c.author ?? 'someone'}** (${c.created}):\n${c.body}`).join('\n\n---\n\n'),
    },
  ];
}

/** `service.references` is free-form JSON (SPEC 2.8 names only the format): strings as they are, anything else as JSON. */
export function referencesSection(references: unknown): PromptSection | null {
  if (references === undefined || references === null) return null;
  const body = typeof references === 'string' ? references : JSON.stringify(references, null, 2);
  return { title: 'Project references (service.references)', body };
}
