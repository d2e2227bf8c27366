import { afterEach, describe, expect, it } from 'vitest';
import type { ListeningServer } from '../../../src/http/listen';
import { graphSvg } from '../../../src/console/graph/graph-svg';
import { layoutDefinition } from '../../../src/console/graph/definition-layout';
import { diffDefinitions } from '../../../src/console/graph/definition-diff';
import { definitionDiffPage } from '../../../src/console/pages/definition-diff-page';
import { pinDefinition } from '../../../src/definition-rules/definition-digest';
import type { WorkflowDefinition } from '../../../workflows/built-in-definitions/definition-types';
import { entry, listedOf, viewOf } from '../../helpers/console-fixtures';
import { bearer, consoleGateway } from './console-gateway';

/** Text a person controls (summaries, comments, messages) written to break out of the page. */
const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "'><svg onload=alert(3)>",
  '</textarea></title><script src=//evil.example/x.js></script>',
  '<a href="javascript:alert(4)">click</a>',
  '`${alert(5)}`',
];
const hostile = HOSTILE.join(' ');

/** The elements the console writes itself; anything else in the markup came from ticket text. */
const CONSOLE_ELEMENTS = new Set(['html', 'head', 'meta', 'title', 'style', 'script', 'body', 'header', 'span', 'nav', 'a', 'form', 'button', 'main', 'p',
  'h1', 'h2', 'div', 'section', 'article', 'code', 'time', 'strong', 'ul', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'br', 'progress', 'svg',
  'defs', 'marker', 'path', 'g', 'rect', 'polygon', 'text', 'select', 'option', 'label', 'input', 'noscript', 'i', 'b']);

/**
 * No element, attribute or address from the hostile text made it into the markup, only its escaped form: every real
 * tag is one the console writes, no tag has an event handler, every script carries the nonce, and no address is
 * anything but http(s) or the console's own.
 */
function expectNoExecutableMarkup(page: string): void {
  const tags = [...page.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>/g)];
  expect(tags.length).toBeGreaterThan(0);
  for (const [tag, name, attributes] of tags) {
    expect(CONSOLE_ELEMENTS.has(name!.toLowerCase()), tag).toBe(true);
    // Quoted values are text (their quotes are escaped inside); the names around them are what a browser runs.
    expect(attributes!.replace(/"[^"]*"/g, '""'), tag).not.toMatch(/\son[a-z]+\s*=/i);
    if (name!.toLowerCase() === 'script') expect(attributes, tag).toMatch(/^ nonce="[A-Za-z0-9+/=]+"$/);
    for (const [, address] of attributes!.matchAll(/\s(?:href|src|action|xlink:href)\s*=\s*"([^"]*)"/gi)) {
      expect(address, tag).toMatch(/^(https?:\/\/|\/console\/|\/api\/v1\/)/);
    }
  }
}

let server: ListeningServer | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

describe('hostile ticket text', () => {
  it('is escaped on the board, on the ticket page and in the refresh fragments', async () => {
    const view = viewOf('EVIL-1', {
      status: 'blocked', current_position: 'create_pr', workflow_type: 'bug',
      blocking: { code: `station_failed${HOSTILE[1]}`, message: hostile },
      waiting: { code: 'station_failed', message: hostile, since: '2026-12-01T09:00:00.000Z', recovery: hostile },
      permitted_commands: [HOSTILE[0]!],
      station_attempts: [{ node: 'create_pr', station: 'create_pr', visit: 1, started_at: '2026-12-01T09:00:00.000Z', finished_at: '2026-12-01T09:01:00.000Z', status: 'failed', outcome: HOSTILE[2]!, summary: hostile, error: hostile, effects: 0, usage: null }],
      tokens_by_stage: { [HOSTILE[0]!]: 10 },
    });
    const listed = listedOf(view, { attributes: { status: 'blocked', node: 'create_pr', blocked: true, kind: 'bug', pullRequests: [HOSTILE[1]!, 'acme/app#1'] } });
    const timeline = [
      entry('observation_received', `comment: ${hostile}`, { body: hostile }),
      entry('effect', `tracker.comment attempt 1: ${hostile}`, { evidence: { url: 'javascript:alert(6)' } }, 'succeeded'),
      entry('effect', 'tracker.comment attempt 1', { evidence: { url: 'data:text/html,<script>alert(7)</script>' } }, 'succeeded'),
      entry('command_decision', hostile, {}, HOSTILE[1]),
    ];
    server = await consoleGateway([listed], { 'EVIL-1': timeline });
    const pages = ['/console/', '/console/board', '/console/tickets/EVIL-1', '/console/tickets/EVIL-1/live'];
    for (const path of pages) {
      const response = await fetch(`${server.url}${path}`, { headers: bearer });
      expect(response.status, path).toBe(200);
      const page = await response.text();
      expectNoExecutableMarkup(page);
      if (path !== '/console/' && path !== '/console/board') expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    const ticketPage = await (await fetch(`${server.url}/console/tickets/EVIL-1`, { headers: bearer })).text();
    expect(ticketPage).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    // Neither address becomes a link; a pull request ref that is no ref is shown as text.
    expect(ticketPage).not.toContain('alert(6)"');
    expect(ticketPage).not.toMatch(/href="data:/);
  });

  it('reflected through the address (a filter, a ticket key, a sign-in target) is refused or escaped', async () => {
    server = await consoleGateway([]);
    for (const path of [`/console/?kind=${encodeURIComponent(HOSTILE[0]!)}`, `/console/tickets/${encodeURIComponent(HOSTILE[1]!)}`, `/console/definitions/${encodeURIComponent(HOSTILE[0]!)}/1`, `/console/nothing${encodeURIComponent(HOSTILE[0]!)}`]) {
      const response = await fetch(`${server.url}${path}`, { headers: bearer });
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expectNoExecutableMarkup(await response.text());
    }
    const login = await fetch(`${server.url}/console/login?next=${encodeURIComponent(`/console/"><script>alert(8)</script>`)}`);
    expectNoExecutableMarkup(await login.text());
  });

  it('in a published definition\'s node names and outcomes is escaped in the SVG', () => {
    const svg = graphSvg(layoutDefinition({
      apiVersion: 'service/v1', name: 'x', revision: 1, entry: 'start',
      nodes: {
        start: { kind: 'station', station: HOSTILE[0]!, on: { [HOSTILE[1]!]: 'end' } },
        end: { kind: 'end', result: 'completed' },
      },
    }), hostile).text;
    expectNoExecutableMarkup(svg);
    expect(svg).toContain('&lt;script&gt;');
  });

  it('in the node names, fields, outcomes and description of two compared revisions is escaped on the comparison page', () => {
    const before: WorkflowDefinition = {
      apiVersion: 'service/v1', name: 'x', revision: 1, entry: 'start', description: HOSTILE[3],
      nodes: {
        start: { kind: 'station', station: HOSTILE[0]!, on: { [HOSTILE[1]!]: HOSTILE[2]! } },
        [HOSTILE[2]!]: { kind: 'gate', gate: HOSTILE[4]!, accepts: [HOSTILE[5]!], on: { ok: 'end' } },
        end: { kind: 'end', result: 'completed' },
      },
    };
    const after: WorkflowDefinition = {
      ...before, revision: 2, description: hostile,
      nodes: { start: { kind: 'station', station: HOSTILE[1]!, params: { [HOSTILE[0]!]: HOSTILE[3]! }, on: { [HOSTILE[0]!]: 'end' } }, end: before.nodes.end! },
    };
    const page = definitionDiffPage(pinDefinition(before), pinDefinition(after), diffDefinitions(before, after)).text;
    expectNoExecutableMarkup(page);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
