import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureContainerImage } from '../helpers/container-image';
import { startDevOnFreshData, type DevOnFreshData } from '../helpers/dev-on-fresh-data';
import { runServiceCommand } from '../helpers/service-process';
import { getJson } from '../helpers/webhooks';
import { projectRoot } from '../../src/temporal/temporal-cli-locator';

/**
 * The console as a person sees it: Debian's Chromium, driven by playwright-core, against `service dev --sandbox`.
 * It signs in through the form, follows a Feature to its pull request and a Bug to its option gate with the
 * `service sandbox` commands of the README's walk-throughs, and reads the pages: the board's groups, the current node
 * in a ticket's graph, a block and what clears it, the links, and the live refresh moving a card while the page keeps
 * its scroll and filters. Screenshots go to test-artifacts/console/.
 */

type View = Record<string, any>;

const root = projectRoot();
/** Debian's package; no browser is downloaded. */
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(root, 'test-artifacts', 'console');

const UNRESOLVED_EFFECTS = new Set(['pending', 'running', 'retryable_failure', 'indeterminate']);

describe('the console in Chromium, against service dev --sandbox', () => {
  let stack: DevOnFreshData | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  /** The console's address and the operator token, as the banner prints them. */
  let consoleUrl = '';
  let token = '';
  const timings: string[] = [];
  const started = Date.now();
  const mark = (what: string) => timings.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${what}`);

  /** `service sandbox ...` as a person runs it beside the stack (it finds the stack through its list of running stacks). */
  async function sandbox(...args: string[]): Promise<string> {
    const ran = await runServiceCommand(['sandbox', ...args], { SERVICE_STACKS_FILE: stack!.stacksFile });
    if (ran.code !== 0) throw new Error(`service sandbox ${args.join(' ')} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
    mark(`sandbox ${args.join(' ')}`);
    return ran.stdout.trim();
  }

  async function view(key: string): Promise<View | undefined> {
    const response = await getJson(`http://127.0.0.1:${stack!.ports.gateway}/api/v1/workflows/${encodeURIComponent(key)}/execution`, token);
    return response.status === 200 ? response.body : undefined;
  }

  /** Waits until the ticket rests (no effect unresolved) in the state `wanted` describes; returns its execution view. */
  async function restsAt(key: string, wanted: { status: string; at?: string }, timeoutMs = 600_000): Promise<View> {
    const deadline = Date.now() + timeoutMs;
    let last: View | undefined;
    while (Date.now() < deadline) {
      last = await view(key).catch(() => undefined);
      if (last && last.status === wanted.status && (!wanted.at || last.current_position === wanted.at)
        && !(last.effects as View[]).some((effect) => UNRESOLVED_EFFECTS.has(effect.status))) {
        mark(`${key} ${wanted.status}${wanted.at ? ` at ${wanted.at}` : ''}`);
        return last;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const output = stack!.dev.output().split('\n').slice(-30).join('\n');
    throw new Error(`${key} did not come to rest ${JSON.stringify(wanted)} within ${timeoutMs / 1000} s; its view:\n${JSON.stringify(last, null, 2)}\nservice dev:\n${output}`);
  }

  /** A new tab at the console's size for people (1280 wide). */
  async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
    const page = await context!.newPage();
    await page.setViewportSize(viewport);
    return page;
  }

  /** Loads a console page (a fresh load, not the refresh) and checks it answered 200. */
  async function open(page: Page, path: string): Promise<void> {
    const response = await page.goto(new URL(path, consoleUrl).href);
    expect(response?.status(), `GET ${path}`).toBe(200);
  }

  const group = (page: Page, name: string) => page.locator(`section.group[data-group="${name}"]`);
  const card = (page: Page, key: string) => page.locator(`article.card[data-ticket="${key}"]`);
  /** The ticket's card in a group, standing at a node (the card's first code). */
  const atNode = (page: Page, name: string, key: string, node: string) => group(page, name)
    .locator(`article.card[data-ticket="${key}"]`, { has: page.locator('p > code', { hasText: new RegExp(`^${node}$`) }) });
  /**
   * The ticket's card in a group, once the board shows it there: the board reads Temporal's visibility, which follows
   * a workflow's change by a moment (and the listing is shared for 2 s), so a page loaded right after a change may
   * show the state before it; its live refresh brings the change.
   */
  async function cardIn(page: Page, name: string, key: string, timeout = 30_000): Promise<Locator> {
    const found = group(page, name).locator(`article.card[data-ticket="${key}"]`);
    await found.waitFor({ timeout });
    return found;
  }

  /** Follows a link as a click does and checks the page it opens answered 200; returns to where it was. */
  async function follow(page: Page, link: Locator, check: (target: Page) => Promise<void>): Promise<string> {
    const href = await link.getAttribute('href');
    expect(href, 'the link has an address').toBeTruthy();
    const [response] = await Promise.all([page.waitForNavigation(), link.click()]);
    expect(response?.status(), `${href} answers`).toBe(200);
    await check(page);
    await page.goBack();
    return href!;
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: this test drives Debian's Chromium. Install it with \`apt-get install -y chromium\` (.ci/run does when it is missing).`);
    }
    ensureContainerImage();
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startDevOnFreshData('console-browser', ['dev', '--sandbox'], inject('temporalCliPath'));
    mark('service dev --sandbox ready');
    // What a person reads in the banner: where the console is and the token to sign in with.
    const banner = stack.dev.output();
    consoleUrl = /^ {2}Console {6}(http:\/\/127\.0\.0\.1:\d+\/console\/)/m.exec(banner)?.[1] ?? '';
    token = /read API token \(SERVICE_OPERATOR_TOKEN\): (\S+)/.exec(banner)?.[1] ?? '';
    expect(consoleUrl, 'the banner names the console').toBe(`http://127.0.0.1:${stack.ports.gateway}/console/`);
    expect(token, 'the banner prints the operator token').not.toBe('');
    browser = await chromium.launch({ executablePath: CHROMIUM });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  }, 900_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    if (stack) {
      const code = await stack.dev.stop('SIGINT', 60_000);
      if (code !== 0) console.log(`service dev stopped with ${code}:\n${stack.dev.output().split('\n').slice(-40).join('\n')}`);
      rmSync(stack.dataDir, { recursive: true, force: true });
    }
    if (timings.length) console.log(`console browser test, seconds since the start:\n${timings.join('\n')}`);
  }, 120_000);

  it('signs in through the form, shows a Feature to its pull request and a Bug at its option gate as a person sees them', async () => {
    const page = await newPage();

    // Signed out, the board is the sign-in form (401); the operator token from the banner signs in.
    const signedOut = await page.goto(consoleUrl);
    expect(signedOut?.status()).toBe(401);
    await expect(page.locator('h1').textContent()).resolves.toBe('Sign in');
    await page.fill('input[name="token"]', 'not-the-token');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    await expect(page.locator('p.error').textContent()).resolves.toContain('not the operator token');
    await page.fill('input[name="token"]', token);
    const [signedIn] = await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(signedIn?.status()).toBe(200);
    expect(page.url()).toBe(consoleUrl);
    await expect(page.locator('h1').textContent()).resolves.toBe('Board');
    const cookies = await context!.cookies();
    expect(cookies.find((c) => c.name === 'service_console')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    mark('signed in');

    // A bug without steps to reproduce waits at triage; a feature waits at its PRD gate (README's walk-throughs).
    const bug = await sandbox('create-ticket', 'Crash on save', '--type', 'Bug', '--description', 'Saving a file with an emoji in its name crashes the editor. Expected: saved. Actual: TypeError.');
    const feature = await sandbox('create-ticket', 'Export reports as CSV');
    await restsAt(bug, { status: 'waiting', at: 'triage_gate' });
    await restsAt(feature, { status: 'waiting', at: 'prd_approval_gate' });
    await open(page, '/console/');
    await expect((await cardIn(page, 'waiting_on_person', feature)).locator('code').first().textContent()).resolves.toBe('prd_approval_gate');
    await expect((await cardIn(page, 'waiting_on_person', bug)).locator('code').first().textContent()).resolves.toBe('triage_gate');
    await expect(card(page, feature).locator('[data-action]').textContent()).resolves.toContain('service:prd-approved');

    // An unknown /service verb blocks the ticket: the board shows it blocked with its message and what clears it.
    await sandbox('comment', feature, '/service aprove');
    const blocked = await restsAt(feature, { status: 'blocked', at: 'prd_approval_gate' });
    await open(page, '/console/');
    const blockedCard = await cardIn(page, 'blocked', feature);
    await expect(blockedCard.locator('.blockcode').textContent()).resolves.toBe(blocked.blocking.code);
    const message = await blockedCard.locator('.detail').textContent();
    expect(message).toBe(blocked.blocking.message);
    expect(message).toContain('unknown command "aprove"');
    const clears = await blockedCard.locator('[data-action]').textContent();
    expect(clears).toBe(blocked.waiting.recovery);
    expect(clears).toContain('add the label service:retry');
    await expect(page.locator('[data-count="blocked"]').textContent()).resolves.toBe('1');
    // The ticket's page says the same, and marks the gate in its graph.
    await Promise.all([page.waitForNavigation(), blockedCard.locator('a.key').click()]);
    expect(page.url()).toBe(new URL(`/console/tickets/${feature}`, consoleUrl).href);
    const panel = page.locator('#live > .panel[data-group="blocked"]');
    await expect(panel.locator('.blockcode').textContent()).resolves.toBe(blocked.blocking.code);
    await expect(panel.locator('.action').textContent()).resolves.toBe(clears);
    await expect(page.locator('svg.graph g.node[data-current="true"]').getAttribute('data-node')).resolves.toBe('prd_approval_gate');
    await page.screenshot({ path: join(ARTIFACTS, `ticket-${feature}-blocked.png`), fullPage: true });

    // Live refresh, in a narrow tab (one column, so it scrolls) filtered to features with the form: the approval label
    // clears the block and passes the gate; the card moves to "waiting on a person" without a reload.
    const live = await newPage({ width: 560, height: 420 });
    await open(live, '/console/');
    const kinds = await live.locator('select[name="kind"] option').allTextContents();
    expect(kinds).toEqual(expect.arrayContaining(['bug', 'feature']));
    await live.selectOption('select[name="kind"]', 'feature');
    await Promise.all([live.waitForNavigation(), live.click('form.filters button[type="submit"]')]);
    expect(new URL(live.url()).searchParams.get('kind')).toBe('feature');
    await expect(card(live, bug).count()).resolves.toBe(0);
    await expect(group(live, 'blocked').locator(`article.card[data-ticket="${feature}"]`).count()).resolves.toBe(1);
    const pageHeight = await live.evaluate<number>('document.documentElement.scrollHeight');
    expect(pageHeight, 'the narrow board scrolls').toBeGreaterThan(420 + 150);
    // A mark on this document: a reload would lose it.
    await live.evaluate('window.scrollTo(0, 150); window.sameDocument = true');
    const url = live.url();

    await sandbox('label', feature, 'service:prd-approved');
    await atNode(live, 'waiting_on_person', feature, 'spec_approval_gate').waitFor({ timeout: 120_000 });
    await expect(group(live, 'blocked').locator('article.card').count()).resolves.toBe(0);
    expect(live.url(), 'the address (and so the filters) kept').toBe(url);
    await expect(live.evaluate('window.sameDocument')).resolves.toBe(true);
    await expect(live.evaluate('window.scrollY')).resolves.toBe(150);
    await expect(live.locator('select[name="kind"]').inputValue()).resolves.toBe('feature');
    await expect(card(live, bug).count()).resolves.toBe(0);
    await expect(live.locator('#refresh-status').textContent()).resolves.toMatch(/^live: updated /);
    mark('live refresh moved the card from blocked to waiting');

    // On to the pull request. The last approval starts the implementation: the open board shows the card running,
    // then waiting on a person at the review gate, again without a reload.
    await sandbox('label', feature, 'service:spec-approved');
    await restsAt(feature, { status: 'waiting', at: 'plan_approval_gate' });
    await sandbox('approve', feature);
    await restsAt(feature, { status: 'waiting', at: 'task_approval_gate' });
    await live.evaluate('window.scrollTo(0, 150)');
    await sandbox('approve', feature);
    await live.locator(`section.group[data-group="running"] article.card[data-ticket="${feature}"]`).waitFor({ timeout: 120_000 });
    mark('live refresh showed the card running');
    await restsAt(feature, { status: 'waiting', at: 'human_review_gate' });
    const atReview = atNode(live, 'waiting_on_person', feature, 'human_review_gate');
    await atReview.waitFor({ timeout: 30_000 });
    await expect(atReview.textContent()).resolves.toContain('sandbox/app#1');
    expect(live.url()).toBe(url);
    await expect(live.evaluate('window.sameDocument')).resolves.toBe(true);
    await expect(live.evaluate('window.scrollY')).resolves.toBe(150);
    await expect(card(live, bug).count()).resolves.toBe(0);
    await live.close();

    // The bug: the steps make triage pass; the analysis runs in a container, then the option gate waits on a person.
    await sandbox('comment', bug, '! Steps: 1. create a file named café.txt 2. press Ctrl-S');
    await restsAt(bug, { status: 'waiting', at: 'rca_option_gate' });
    // A third ticket blocked by an unknown verb, so the board shows a block too.
    const other = await sandbox('create-ticket', 'Add dark mode');
    await restsAt(other, { status: 'waiting', at: 'prd_approval_gate' });
    await sandbox('comment', other, '/service aprove');
    await restsAt(other, { status: 'blocked', at: 'prd_approval_gate' });

    await open(page, '/console/');
    await cardIn(page, 'blocked', other);
    await expect((await cardIn(page, 'waiting_on_person', feature)).locator('code').first().textContent()).resolves.toBe('human_review_gate');
    await expect((await cardIn(page, 'waiting_on_person', bug)).locator('code').first().textContent()).resolves.toBe('rca_option_gate');
    await expect(card(page, bug).locator('[data-action]').textContent()).resolves.toContain('>option');
    for (const key of [feature, bug, other]) await expect(card(page, key).count(), `${key} is on the board once`).resolves.toBe(1);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.screenshot({ path: join(ARTIFACTS, 'board.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The feature's page: the review gate marked, the links to the tracker, the pull request and the definition work.
    await open(page, `/console/tickets/${feature}`);
    await expect(page.locator('#live > .panel').first().getAttribute('data-group')).resolves.toBe('waiting_on_person');
    const current = page.locator('svg.graph g.node[data-current="true"]');
    await expect(current.count()).resolves.toBe(1);
    await expect(current.getAttribute('data-node')).resolves.toBe('human_review_gate');
    await expect(page.locator('svg.graph g.edge.taken').count()).resolves.toBeGreaterThan(5);
    await expect(page.locator('svg.graph g.edge.taken[data-to="human_review_gate"]').count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, `ticket-${feature}.png`), fullPage: true });
    await page.screenshot({ path: join(ARTIFACTS, `ticket-${feature}-top.png`) });

    const links = page.locator('ul.links');
    const tracker = await follow(page, links.locator('li', { hasText: 'tracker issue' }).locator('a'), async (target) => {
      await expect(target.locator('body').textContent()).resolves.toContain('Export reports as CSV');
    });
    expect(tracker).toMatch(new RegExp(`/browse/${feature}$`));
    const pull = await follow(page, links.locator('li', { hasText: 'pull request' }).locator('a'), async (target) => {
      await expect(target.locator('h1').textContent()).resolves.toContain(`[${feature}]`);
    });
    expect(pull).toMatch(/\/sandbox\/app\/pull\/1$/);
    const definition = await follow(page, page.locator('h1 a'), async (target) => {
      await expect(target.locator('h1').textContent()).resolves.toMatch(/^feature r2/);
      await expect(target.locator('svg.graph g.node[data-node="human_review_gate"]').textContent()).resolves.toContain('1 ticket');
    });
    expect(definition).toBe('/console/definitions/feature/2');

    // The bug's page: the option gate marked. Its station runs are wider than their column: scrolled sideways, the
    // panel stays so across a refresh.
    await page.setViewportSize({ width: 1280, height: 1000 });
    await open(page, `/console/tickets/${bug}`);
    await expect(page.locator('svg.graph g.node[data-current="true"]').getAttribute('data-node')).resolves.toBe('rca_option_gate');
    await expect(page.locator('#live > .panel').first().getAttribute('data-group')).resolves.toBe('waiting_on_person');
    await page.screenshot({ path: join(ARTIFACTS, `ticket-${bug}-top.png`) });
    await page.screenshot({ path: join(ARTIFACTS, `ticket-${bug}.png`), fullPage: true });
    const runs = page.locator('#live .panel[data-scroll-key="runs"]');
    const [wide, column] = await runs.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(wide, 'the station runs scroll sideways in their panel').toBeGreaterThan(column + 40);
    await runs.evaluate((el) => { el.scrollLeft = 40; });
    const status = await page.locator('#refresh-status').textContent();
    await page.locator('#refresh-status').filter({ hasNotText: status ?? '' }).waitFor({ timeout: 15_000 });
    await expect(page.locator('#refresh-status').textContent()).resolves.toMatch(/^live: updated /);
    await expect(runs.evaluate((el) => el.scrollLeft)).resolves.toBe(40);
    mark('pages checked');
  }, 1_500_000);
});
