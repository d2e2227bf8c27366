import type { Request } from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issuePageRefusal } from '../../../src/sandbox/tracker-simulator/issue-page';
import { startTrackerSimulator, type TrackerSimulator } from '../../../src/sandbox/tracker-simulator/tracker-simulator';

/**
 * The console links a ticket to `<TRACKER_BASE_URL>/browse/<KEY>` (Jira's issue page). In the sandbox that link
 * answered the REST API's 401 JSON, since a browser sends no Basic credentials; the simulator now serves the page.
 */
describe('tracker simulator: the issue page at /browse/KEY', () => {
  let sim: TrackerSimulator;
  const credentials = { email: 'service@sandbox.local', apiToken: 'the-api-token' };
  const basic = (email: string, token: string) => `Basic ${Buffer.from(`${email}:${token}`).toString('base64')}`;

  beforeEach(async () => {
    sim = await startTrackerSimulator({ projects: ['SBX'], credentials });
  });
  afterEach(async () => {
    await sim.close();
  });

  it('shows the issue to a browser on loopback without credentials, everything escaped', async () => {
    const epic = sim.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'Export <b>reports</b>', description: 'Rows as <script>alert(1)</script>', labels: ['service:managed'] });
    const task = sim.state.createIssue({ projectKey: 'SBX', issueType: 'Task', summary: 'Write the exporter', parentKey: epic.key });
    sim.state.addComment(epic.key, '## PRD for SBX-1\n\nA <i>comment</i>');
    sim.state.linkIssues('Relates', task.key, epic.key);

    const page = await fetch(`${sim.url}/browse/${epic.key}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('<title>[SBX-1] Export &lt;b&gt;reports&lt;/b&gt; · tracker simulator</title>');
    expect(html).toContain('Feature · <strong>To Do</strong>');
    expect(html).toContain('<span class="label">service:managed</span>');
    expect(html).toContain('Rows as &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('A &lt;i&gt;comment&lt;/i&gt;');
    expect(html).toContain('links: Relates ← SBX-2');
    expect(html).not.toContain('<script>');
    expect(await (await fetch(`${sim.url}/browse/${task.key.toLowerCase()}`)).text()).toContain('parent: <a href="SBX-1">SBX-1</a>');

    expect((await fetch(`${sim.url}/browse/SBX-99`)).status).toBe(404);
    // Credentials that are sent must be the REST API's; the REST API itself still asks for them.
    expect((await fetch(`${sim.url}/browse/SBX-1`, { headers: { authorization: basic(credentials.email, 'wrong') } })).status).toBe(401);
    expect((await fetch(`${sim.url}/browse/SBX-1`, { headers: { authorization: basic(credentials.email, credentials.apiToken) } })).status).toBe(200);
    expect((await fetch(`${sim.url}/rest/api/3/issue/SBX-1`)).status).toBe(401);
  });

  it('asks for the Basic credentials outside loopback (a simulator listening on another interface)', () => {
    const request = (remoteAddress: string, authorization?: string) => ({ headers: authorization ? { authorization } : {}, socket: { remoteAddress } }) as unknown as Request;
    const valid = (email: string, token: string) => email === credentials.email && token === credentials.apiToken;
    expect(issuePageRefusal(request('127.0.0.1'), valid)).toBeUndefined();
    expect(issuePageRefusal(request('::1'), valid)).toBeUndefined();
    expect(issuePageRefusal(request('192.0.2.7'), valid)).toMatch(/outside loopback/);
    expect(issuePageRefusal(request('192.0.2.7', basic(credentials.email, credentials.apiToken)), valid)).toBeUndefined();
    expect(issuePageRefusal(request('127.0.0.1', 'Bearer x'), valid)).toMatch(/not valid/);
  });
});
