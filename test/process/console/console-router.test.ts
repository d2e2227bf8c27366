import { afterEach, describe, expect, it } from 'vitest';
import type { ListeningServer } from '../../../src/http/listen';
import { fourTickets, move } from '../../helpers/console-fixtures';
import { definitionsWithBugNextRevision } from '../../helpers/console-definition-revisions';
import { bearer, consoleGateway, TOKEN } from './console-gateway';

let server: ListeningServer | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

async function start(...args: Parameters<typeof consoleGateway>): Promise<string> {
  server = await consoleGateway(...args);
  return server.url;
}

describe('the console\'s access', () => {
  it('answers 401 with the sign-in form without the token, and never reads a token from the query string', async () => {
    const url = await start(fourTickets());
    for (const path of ['/console/', '/console/board', '/console/tickets/BUG-1', `/console/?token=${TOKEN}`]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.text()).toContain('action="/console/login"');
    }
    expect((await fetch(`${url}/console/`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('is disabled with 503 while SERVICE_OPERATOR_TOKEN is unset, and absent with SERVICE_CONSOLE_ENABLED=false', async () => {
    let url = await start(fourTickets(), {}, { SERVICE_OPERATOR_TOKEN: '' });
    const disabled = await fetch(`${url}/console/`, { headers: { authorization: 'Bearer anything' } });
    expect(disabled.status).toBe(503);
    expect(await disabled.text()).toContain('SERVICE_OPERATOR_TOKEN is not set');
    await server!.close();
    url = await start(fourTickets(), {}, { SERVICE_CONSOLE_ENABLED: 'false' });
    const off = await fetch(`${url}/console/`, { headers: bearer });
    expect(off.status).toBe(404);
    expect(await off.json()).toEqual({ error: { code: 'not_found', message: 'no route for GET /console/' } });
  });

  it('signs in with a form: a wrong token is 401, the right one sets an HttpOnly SameSite=Strict cookie that holds no token', async () => {
    const url = await start(fourTickets());
    const login = (token: string, next = '/console/tickets/BUG-1') => fetch(`${url}/console/login`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, next }).toString(),
    });
    expect((await login('nope')).status).toBe(401);
    const ok = await login(TOKEN);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/console/tickets/BUG-1');
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^service_console=[A-Za-z0-9_-]+; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    expect((await fetch(`${url}/console/`, { headers: { cookie: session } })).status).toBe(200);
    // The cookie is no bearer token for the API.
    expect((await fetch(`${url}/api/v1/workflows/BUG-1/execution`, { headers: { authorization: `Bearer ${session.split('=')[1]}` } })).status).toBe(401);
    expect((await login(TOKEN, 'https://evil.example/')).headers.get('location')).toBe('/console/');
    expect((await login(TOKEN, '//evil.example/console/')).headers.get('location')).toBe('/console/');
    const out = await fetch(`${url}/console/logout`, { method: 'POST', redirect: 'manual', headers: { cookie: session } });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
  });

  it('only reads: anything but GET past sign-in is 405', async () => {
    const url = await start(fourTickets());
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${url}/console/tickets/BUG-1`, { method, headers: bearer });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('sends a Content-Security-Policy that forbids other sources and lets in only the nonce-bearing script and style', async () => {
    const url = await start(fourTickets());
    const response = await fetch(`${url}/console/`, { headers: bearer });
    const policy = response.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)![1]!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`style-src 'nonce-${nonce}'`);
    expect(policy).not.toMatch(/unsafe-inline|https?:|\*/);
    const page = await response.text();
    expect([...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([`<script nonce="${nonce}">`]);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the board', () => {
  it('groups the tickets by who acts next, with counts, what each has cost, and says what to write or label', async () => {
    const tickets = fourTickets();
    tickets[0]!.view!.tokens_spent = 12_345;
    const url = await start(tickets);
    const page = await (await fetch(`${url}/console/`, { headers: bearer })).text();
    const group = (name: string) => page.slice(page.indexOf(`<section class="group ${name}"`), page.indexOf('</section>', page.indexOf(`<section class="group ${name}"`)));
    expect(group('waiting_on_person')).toContain('data-ticket="BUG-1"');
    expect(group('waiting_on_person')).toContain('commands accepted here: &gt;option');
    expect(group('waiting_on_person')).toContain('bug · bug r3 · 12,345 tokens');
    expect(group('running')).toContain(' · 0 tokens');
    expect(group('running')).toContain('data-ticket="BUG-2"');
    expect(group('blocked')).toContain('data-ticket="OPS-3"');
    expect(group('blocked')).toContain('station_failed');
    expect(group('blocked')).toContain('add the label service:retry to resume at create_pr');
    expect(group('done')).toContain('data-ticket="BUG-4"');
    for (const name of ['waiting_on_person', 'running', 'blocked', 'done']) expect(page).toContain(`data-count="${name}">1<`);
    expect(page).toContain('id="live" data-refresh="/console/board?days=7"');
  });

  it('filters by query parameters, keeps them in the refresh address, and refuses a filter it cannot read', async () => {
    const url = await start(fourTickets());
    const page = await (await fetch(`${url}/console/?project=OPS&days=3`, { headers: bearer })).text();
    expect(page).toContain('data-ticket="OPS-3"');
    expect(page).not.toContain('data-ticket="BUG-1"');
    expect(page).toContain('data-refresh="/console/board?project=OPS&amp;days=3"');
    const fragment = await fetch(`${url}/console/board?project=OPS&days=3`, { headers: bearer });
    expect(fragment.status).toBe(200);
    const text = await fragment.text();
    expect(text.startsWith('<div class="board">')).toBe(true);
    expect(text).toContain('data-ticket="OPS-3"');
    const bad = await fetch(`${url}/console/?definition=feature`, { headers: bearer });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('definition must be name@revision like feature@3');
    expect((await fetch(`${url}/console/?days=1000`, { headers: bearer })).status).toBe(400);
  });
});

describe('a board of many tickets', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => {
    const [gate] = fourTickets();
    const key = `BIG-${i + 1}`;
    return { ...gate!, ticketKey: key, workflowId: `ticket-${key}`, view: { ...gate!.view!, ticket_key: key, workflow_id: `ticket-${key}` } };
  });
  const cards = (page: string) => [...page.matchAll(/<article class="card"/g)].length;

  it('shows the first 100 cards of a group with its count and a link to all of them, and all with ?all=1', async () => {
    const url = await start([...many(250), ...fourTickets().slice(1)]);
    const page = await (await fetch(`${url}/console/?project=BIG`, { headers: bearer })).text();
    expect(page).toContain('data-count="waiting_on_person">250<');
    expect(cards(page)).toBe(100);
    expect(page).toContain('<p class="small" data-more="waiting_on_person">the first 100 of 250: <a href="/console/?project=BIG&amp;days=7&amp;all=1">show all 250</a></p>');
    expect(page).not.toContain('data-more="running"');
    const all = await (await fetch(`${url}/console/?project=BIG&days=7&all=1`, { headers: bearer })).text();
    expect(cards(all)).toBe(250);
    expect(all).not.toContain('data-more=');
    // The refresh keeps showing all of them, and so does the filter form.
    expect(all).toContain('data-refresh="/console/board?project=BIG&amp;days=7&amp;all=1"');
    expect(all).toContain('<input type="hidden" name="all" value="1">');
    expect(cards(await (await fetch(`${url}/console/board?project=BIG&days=7`, { headers: bearer })).text())).toBe(100);
    const bad = await fetch(`${url}/console/?all=yes`, { headers: bearer });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('all must be 1 (every card of every group), got &quot;yes&quot;');
  });

  it('says when Temporal listed the tickets it shows (the listing is kept a few seconds)', async () => {
    const url = await start(fourTickets());
    const page = await (await fetch(`${url}/console/`, { headers: bearer })).text();
    const listed = /tickets as Temporal listed them <time data-listed-at="([^"]+)" datetime="[^"]+">(\d+) s<\/time> before/.exec(page);
    expect(listed).not.toBeNull();
    expect(Date.now() - Date.parse(listed![1]!)).toBeGreaterThanOrEqual(2_000);
    expect(Number(listed![2])).toBeGreaterThanOrEqual(2);
  });
});

describe('a ticket\'s page', () => {
  it('draws its pinned definition with the current node marked and the edges taken, and links the tracker and Temporal', async () => {
    const timeline = [move('intake', 'triage_check', 'configured'), move('triage_check', 'analyze_bug', 'complete'), move('analyze_bug', 'reflect_rca', 'analyzed'), move('reflect_rca', 'rca_option_gate', 'done')];
    const url = await start(fourTickets(), { 'BUG-1': timeline });
    const response = await fetch(`${url}/console/tickets/bug-1`, { headers: bearer });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect([...page.matchAll(/data-node="([^"]+)"[^>]*data-current="true"/g)].map((m) => m[1])).toEqual(['rca_option_gate']);
    expect(page).toMatch(/<g class="edge taken" data-from="reflect_rca" data-to="rca_option_gate" data-taken="1">/);
    expect(page).toMatch(/<g class="edge" data-from="plan_bug_fix" data-to="plan_approval_gate" data-taken="0">/);
    expect(page).toContain('href="https://tracker.example/browse/BUG-1"');
    expect(page).toContain('href="http://127.0.0.1:8233/namespaces/default/workflows/ticket-BUG-1"');
    expect(page).toContain('data-refresh="/console/tickets/BUG-1/live"');
    expect((await fetch(`${url}/console/tickets/BUG-1/live`, { headers: bearer })).status).toBe(200);
  });

  it('links each pull request and shows token spend against the budgets', async () => {
    const [, running] = fourTickets();
    running!.view = { ...running!.view!, tokens_spent: 50_000, tokens_by_stage: { analyze_bug: 50_000 } };
    const url = await start([running!]);
    const page = await (await fetch(`${url}/console/tickets/BUG-2`, { headers: bearer })).text();
    expect(page).toContain('href="https://github.com/acme/app/pull/7"');
    expect(page).toContain('50% of 100,000');
    expect(page).toContain('125% of 40,000');
  });

  it('answers 404 for a ticket without a workflow and 400 for what is no ticket key', async () => {
    const url = await start(fourTickets());
    expect((await fetch(`${url}/console/tickets/NOPE-9`, { headers: bearer })).status).toBe(404);
    expect((await fetch(`${url}/console/tickets/not-a-key`, { headers: bearer })).status).toBe(400);
  });
});

describe('a definition\'s page', () => {
  it('draws a revision with the running tickets at each node, and lists the definitions', async () => {
    const url = await start(fourTickets());
    const page = await (await fetch(`${url}/console/definitions/bug/3`, { headers: bearer })).text();
    expect(page).toContain('<svg class="graph"');
    expect(page).toMatch(/data-node="rca_option_gate"[\s\S]*?rca_option · 1 ticket</);
    expect(page).toMatch(/data-node="analyze_bug"[\s\S]*?analyze_bug · 1 ticket</);
    const index = await (await fetch(`${url}/console/definitions`, { headers: bearer })).text();
    expect(index).toContain('href="/console/definitions/feature/');
    expect((await fetch(`${url}/console/definitions/bug/99`, { headers: bearer })).status).toBe(404);
  });
});

describe('a comparison of two revisions', () => {
  const withNextRevision = () => consoleGateway(fourTickets(), {}, {}, definitionsWithBugNextRevision()).then((s) => { server = s; return s.url; });

  it('is linked from a revision\'s page, draws both revisions marked added, removed and changed, with a legend, and lists them', async () => {
    const url = await withNextRevision();
    const revision = await (await fetch(`${url}/console/definitions/bug/3`, { headers: bearer })).text();
    expect(revision).toContain('<a href="/console/definitions/bug/diff?from=3&amp;to=4">compare with r4</a>');
    expect(await (await fetch(`${url}/console/definitions/bug/4`, { headers: bearer })).text()).toContain('<a href="/console/definitions/bug/diff?from=3&amp;to=4">compare with r3</a>');
    // A definition with one revision offers no comparison.
    expect(await (await fetch(`${url}/console/definitions/feature/1`, { headers: bearer })).text()).not.toContain('data-compare');

    const response = await fetch(`${url}/console/definitions/bug/diff?from=3&to=4`, { headers: bearer });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain('<h1>bug: r3 → r4</h1>');
    expect(page).toContain('Nodes: 1 added, 1 removed, 5 changed; edges: 2 added, 2 removed, 2 changed.');
    expect(page).toMatch(/class="legend small"><span class="change added">added in r4<\/span><span class="change removed">removed/);
    const marked = (attribute: string) => [...page.matchAll(new RegExp(`<g class="[^"]*" ${attribute}="([^"]+)"[^>]*data-change="(\\w+)"`, 'g'))].map((m) => `${m[1]} ${m[2]}`).sort();
    expect(marked('data-node')).toEqual(['local_review changed', 'rca_option_gate changed', 'review_response_gate changed', 'security_review added', 'teardown_workspace changed', 'triage_check changed', 'update_documentation removed']);
    expect(page).toMatch(/<g class="edge removed" data-from="update_documentation" data-to="create_pr" data-taken="0" data-change="removed">/);
    expect(page).toMatch(/<tr class="changed" data-node-change="changed" data-node="teardown_workspace">[\s\S]*?<code>kind<\/code>: <code class="before">station<\/code> → <code class="after">router<\/code>/);
    expect(page).toMatch(/data-node="review_response_gate">[\s\S]*?<code>retry_to<\/code>: <code class="before">human_review_gate<\/code> → <code class="after">implement_review<\/code>/);
    expect(page).toMatch(/<tr class="changed" data-edge-change="changed" data-from="rca_option_gate" data-to="plan_bug_fix">[\s\S]*?<td>option_selected, approved<\/td><td>option_selected, approved, regenerate<\/td>/);
    expect(page).toContain('href="/console/definitions/bug/diff?from=4&amp;to=3">the other way round</a>');
    // The same revision twice: nothing differs.
    const same = await (await fetch(`${url}/console/definitions/bug/diff?from=3&to=3`, { headers: bearer })).text();
    expect(same).toContain('The two revisions have the same nodes, edges, entry and description.');
  });

  it('answers 400 for a missing or unreadable revision and 404 for an unknown definition or revision, naming the problem', async () => {
    const url = await withNextRevision();
    const answer = async (path: string) => {
      const response = await fetch(`${url}${path}`, { headers: bearer });
      return `${response.status} ${/<p class="error">([^<]*)<\/p>/.exec(await response.text())?.[1]}`;
    };
    expect(await answer('/console/definitions/bug/diff?to=4')).toBe('400 from is missing: a comparison is addressed as /console/definitions/&lt;name&gt;/diff?from=&lt;revision&gt;&amp;to=&lt;revision&gt;');
    expect(await answer('/console/definitions/bug/diff?from=3')).toMatch(/^400 to is missing/);
    expect(await answer('/console/definitions/bug/diff?from=two&to=4')).toBe('400 from must be a revision number like 3, got &quot;two&quot;');
    expect(await answer('/console/definitions/bug/diff?from=0&to=4')).toBe('400 from must be a revision number like 3, got &quot;0&quot;');
    expect(await answer('/console/definitions/bug/diff?from=3&to=4&to=4')).toBe('400 to must be given once');
    expect(await answer('/console/definitions/bug/diff?from=3&to=9')).toBe('404 bug has no revision 9 (its revisions: r3, r4)');
    expect(await answer('/console/definitions/bug/diff?from=8&to=9')).toBe('404 bug has no revision 8 or 9 (its revisions: r3, r4)');
    expect(await answer('/console/definitions/nothing/diff?from=1&to=3')).toBe('404 there is no definition named nothing');
    expect(await answer('/console/definitions/no%20such/diff?from=1&to=3')).toMatch(/^400 &quot;no such&quot; is not a definition name/);
  });
});
