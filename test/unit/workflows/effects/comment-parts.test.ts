import { describe, expect, it } from 'vitest';
import { artifactPostIntents } from '../../../../workflows/effects/artifact-posting';
import { commentParts, splitMarkdown } from '../../../../workflows/effects/comment-parts';

const paragraph = (n: number) => `Paragraph ${n}: ${'word '.repeat(60).trim()}.`;

describe('splitting an artifact into comment parts', () => {
  it('keeps a short artifact in one comment without a part header', () => {
    expect(commentParts('# PRD\n\nShort.')).toEqual(['# PRD\n\nShort.']);
  });

  it('cuts at paragraph breaks, every part under the limit, nothing lost', () => {
    const text = Array.from({ length: 40 }, (_, i) => paragraph(i + 1)).join('\n\n');
    const parts = commentParts(text, 2000);
    expect(parts.length).toBeGreaterThan(3);
    parts.forEach((part, index) => {
      expect(part.length).toBeLessThanOrEqual(2000);
      expect(part.startsWith(`_Part ${index + 1} of ${parts.length}_\n\n`)).toBe(true);
    });
    const rejoined = splitMarkdown(text, 2000).join('\n\n');
    expect(rejoined).toBe(text);
  });

  it('closes a code fence at a cut and reopens it in the next part', () => {
    const code = Array.from({ length: 80 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');
    const parts = splitMarkdown(`Intro\n\n\`\`\`ts\n${code}\n\`\`\`\n\nOutro`, 1000);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) expect((part.match(/^```/gm) ?? []).length % 2).toBe(0);
    expect(parts[1]!.startsWith('```ts\n')).toBe(true);
  });

  it('cuts a single line longer than the limit', () => {
    const parts = splitMarkdown('y'.repeat(2500), 1000);
    expect(parts.every((p) => p.length <= 1000)).toBe(true);
    expect(parts.join('')).toBe('y'.repeat(2500));
  });

  it('asks for one required comment per part and nothing else: the gate sets its own pending label', () => {
    const intents = artifactPostIntents({ issueKey: 'FEAT-1', artifact: 'prd', markdown: Array.from({ length: 20 }, (_, i) => paragraph(i)).join('\n\n'), partLimit: 2000 });
    expect(intents.map((i) => i.name)).toEqual(intents.map((_, index) => `post_prd_part_${index + 1}`));
    expect(intents.length).toBeGreaterThan(2);
    expect(intents.every((i) => i.required && i.operation.kind === 'tracker.comment')).toBe(true);
  });
});
