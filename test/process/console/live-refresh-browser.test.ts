import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListedTicket } from '../../../src/console/board/listed-ticket';
import type { ListeningServer } from '../../../src/http/listen';
import { consoleGateway, TOKEN } from './console-gateway';
import { listedOf, viewOf } from '../../helpers/console-fixtures';

/** Debian's package (`apt-get install -y chromium`; .ci/run and npm test install it): no browser is downloaded. */
const CHROMIUM = '/usr/bin/chromium';
const FEATURE = { name: 'feature', revision: 1, digest: 'e'.repeat(64) };

/** A feature blocked at its PRD gate by an unknown verb, or waiting at the spec gate once the block is cleared. */
function feature(key: string, blocked: boolean): ListedTicket {
  const message = 'invalid command: unknown command "aprove"';
  return listedOf(viewOf(key, blocked
    ? {
      workflow_type: 'feature', definition: FEATURE, status: 'blocked', current_position: 'prd_approval_gate',
      blocking: { code: 'invalid_command', message }, permitted_commands: ['service:retry'],
      waiting: { code: 'invalid_command', message, since: '2026-12-01T07:00:00.000Z', recovery: 'fix the cause, then add the label service:retry to resume at prd_approval_gate' },
    }
    : {
      workflow_type: 'feature', definition: FEATURE, status: 'waiting', current_position: 'spec_approval_gate',
      waiting: { code: 'gate', message: 'approval of the spec', since: '2026-12-01T09:00:00.000Z', recovery: 'add service:spec-approved' },
    }));
}

/**
 * The live refresh in a real browser over the console's own pages: the board and a ticket's page are swapped in every
 * 5 s, and they must stay where the person scrolled them. Chromium's scroll anchoring moved the board (150 px became
 * 130 px when a card moved from "blocked" to "waiting on a person"), since the refresh replaces the nodes it anchors
 * to; and a panel scrolled sideways (the station runs, wider than their column) was back at its left edge.
 */
describe('the console\'s live refresh in Chromium', () => {
  let browser: Browser;
  let gateway: ListeningServer;
  const listed: ListedTicket[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: this test drives Debian's Chromium. Install it with \`apt-get install -y chromium\`.`);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    gateway = await consoleGateway(listed);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('moves a card to another group without a reload, keeping the scroll position and the filters', async () => {
    listed.push(feature('APP-1', false), feature('APP-2', false), feature('APP-3', false), feature('APP-4', true), listedOf(viewOf('BUG-9')));
    const context = await browser.newContext({ viewport: { width: 560, height: 420 }, extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` } });
    const page = await context.newPage();
    await page.goto(`${gateway.url}/console/?kind=feature`);
    await page.locator('section.group[data-group="blocked"] article.card[data-ticket="APP-4"]').waitFor();
    expect(await page.locator('article.card[data-ticket="BUG-9"]').count()).toBe(0);
    await page.evaluate('window.scrollTo(0, 150); window.sameDocument = true');

    listed[3] = feature('APP-4', false);
    await page.locator('section.group[data-group="waiting_on_person"] article.card[data-ticket="APP-4"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('section.group[data-group="blocked"] article.card').count()).toBe(0);
    expect(await page.evaluate('window.sameDocument')).toBe(true);
    expect(await page.evaluate('document.documentElement.scrollHeight - window.innerHeight')).toBeGreaterThan(150);
    expect(await page.evaluate('window.scrollY')).toBe(150);
    expect(new URL(page.url()).search).toBe('?kind=feature');
    expect(await page.locator('select[name="kind"]').inputValue()).toBe('feature');
    expect(await page.locator('article.card[data-ticket="BUG-9"]').count()).toBe(0);
    await context.close();
  }, 30_000);

  it('keeps where a person scrolled a panel of a ticket\'s page (the station runs, wider than their column)', async () => {
    const attempts = ['intake', 'triage_check', 'analyze_bug', 'reflect_rca'].map((node, i) => ({
      node, station: node, visit: 1, started_at: `2026-12-01T09:0${i}:00.000Z`, finished_at: `2026-12-01T09:0${i}:30.000Z`,
      status: 'succeeded' as const, outcome: 'done', summary: null, error: null, effects: 0, usage: { input_tokens: 1200, output_tokens: 300 },
    }));
    listed.push(listedOf(viewOf('BUG-7', {
      status: 'waiting', current_position: 'rca_option_gate', station_attempts: attempts,
      waiting: { code: 'gate', message: 'a fix option: comment `>option N`', since: '2026-12-01T09:04:00.000Z', recovery: 'commands accepted here: >option' },
    })));
    // The gateway's workflows port knows the tickets it was started with.
    const own = await consoleGateway([...listed]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` } });
    const page = await context.newPage();
    const opened = await page.goto(`${own.url}/console/tickets/BUG-7`);
    expect(opened?.status()).toBe(200);
    const runs = page.locator('#live .panel', { has: page.locator('h2', { hasText: 'Station runs' }) });
    const [scrollWidth, clientWidth] = await runs.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth, 'the table is wider than its panel').toBeGreaterThan(clientWidth + 40);
    await runs.evaluate((el) => { el.scrollLeft = 40; });
    await page.evaluate('window.sameDocument = true');
    await page.locator('#refresh-status', { hasText: /^live: updated / }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('window.sameDocument')).toBe(true);
    expect(await runs.evaluate((el) => el.scrollLeft)).toBe(40);
    await context.close();
    await own.close();
  }, 30_000);
});
