import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPerson } from '../../../src/sandbox/sandbox-person';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox-stack';
import { ticketViewText } from '../../../src/sandbox/ticket-view-text';
import { startService } from '../../helpers/service-process';
import { pushCommit, remoteUrl } from '../sandbox/git-over-http';

/**
 * `service sandbox show SBX-1`: the ticket as a person reads it (comments as text, labels, the pull requests of its
 * branch with their diffs), from the simulators of a sandbox stack started here (no Temporal needed), through the
 * real binary (dist/, built by `npm test`) as a user runs it.
 */
describe('service sandbox show', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-show-'));
  const stateDir = join(dataDir, 'sandbox');
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({ stateDir, serviceStateExists: false, env: {} });
    const tracker = sandbox.tracker.state;
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'Export reports as CSV', labels: ['service:managed', 'service:prd-pending'] });
    tracker.addComment('SBX-1', '## PRD\n\nExport **every** report as <csv>.');
    tracker.addComment('SBX-1', '? is Excel in scope');
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Bug', summary: 'No pull request yet' });
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Task', summary: 'Fix: No pull request yet (sandbox/app)' });
    tracker.linkIssues('Relates', 'SBX-3', 'SBX-2');
    const scm = sandbox.scmhost;
    await pushCommit(remoteUrl(scm.url, 'sandbox/app', sandbox.env.SCMHOST_TOKEN!), 'service/sbx-1', { 'src/export.ts': 'export const csv = true;\n' }, '[SBX-1] implement the tasks', { from: 'main' });
    scm.state.createPull(scm.state.repo('sandbox', 'app'), { title: '[SBX-1] Export reports as CSV', head: 'service/sbx-1', base: 'main' }, scm.state.user('service-bot'));
    // A bug whose fix was opened as its own pull request, its fix Task, and a feature's task under its epic.
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Bug', summary: 'Crash on save' });
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Task', summary: 'Fix: Crash on save (sandbox/app)' });
    tracker.linkIssues('Relates', 'SBX-5', 'SBX-4');
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Epic', summary: 'Exports', parentKey: 'SBX-1' });
    tracker.createIssue({ projectKey: 'SBX', issueType: 'Task', summary: 'CSV writer', parentKey: 'SBX-6' });
    await pushCommit(remoteUrl(scm.url, 'sandbox/app', sandbox.env.SCMHOST_TOKEN!), 'service/sbx-4', { 'SANDBOX_CHANGES/SBX-4.md': 'fixed\n' }, '[SBX-4] fix', { from: 'main' });
    scm.state.createPull(scm.state.repo('sandbox', 'app'), { title: '[SBX-4] Crash on save', head: 'service/sbx-4', base: 'main' }, scm.state.user('service-bot'));
  }, 60_000); // several git clones and pushes: slow on a loaded machine
  afterAll(async () => {
    await sandbox?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads comments as text, the labels, and each pull request with its diff', async () => {
    const person = await SandboxPerson.connect(stateDir);
    const view = await person.readTicket('SBX-1', { diffs: true });
    expect(view).toMatchObject({ key: 'SBX-1', summary: 'Export reports as CSV', type: 'Feature', labels: ['service:managed', 'service:prd-pending'] });
    expect(view.comments.map((c) => c.text)).toEqual([expect.stringContaining('Export **every** report'), '? is Excel in scope']);
    expect(view.pulls).toMatchObject([{ number: 1, state: 'open', head: 'service/sbx-1', base: 'main', url: `${sandbox.scmhost.url}/sandbox/app/pull/1` }]);
    expect(view.pulls[0]?.diff).toContain('+export const csv = true;');
    const text = ticketViewText(view);
    expect(text).toContain('labels: service:managed, service:prd-pending');
    expect(text).toContain('Comments (2)');
    expect(text).toContain('Pull requests (1)');
    expect(text).toContain('sandbox/app#1 [SBX-1] Export reports as CSV');
    expect(text).toContain('    +export const csv = true;');
  });

  it('names the links of a ticket from its side (the fix Task of a bug relates to it)', async () => {
    const person = await SandboxPerson.connect(stateDir);
    const task = await person.readTicket('SBX-3', { diffs: false });
    expect(task.links).toEqual(['relates to SBX-2']);
    expect(ticketViewText(task)).toContain('  links: relates to SBX-2');
    expect(ticketViewText(await person.readTicket('SBX-1', { diffs: false }))).not.toContain('links:');
  });

  it('shows the pull requests that carry a ticket\'s work: a fix Task\'s is its bug\'s, a task\'s is its feature\'s', async () => {
    const person = await SandboxPerson.connect(stateDir);
    const fix = await person.readTicket('SBX-5', { diffs: true });
    expect(fix.pulls).toMatchObject([{ number: 2, head: 'service/sbx-4', carries: 'the pull request of SBX-4, the bug this task fixes' }]);
    expect(fix.pulls[0]?.diff).toContain('+fixed');
    expect(ticketViewText(fix)).toContain('Pull requests (1)');
    expect(ticketViewText(fix)).not.toContain('none yet');
    const bug = await person.readTicket('SBX-4', { diffs: false });
    expect(bug.pulls).toMatchObject([{ number: 2, carries: 'the fix of SBX-5, this bug\'s fix task in sandbox/app' }]);
    const task = await person.readTicket('SBX-7', { diffs: false });
    expect(task.pulls.map((p) => [p.number, p.carries])).toEqual([[1, 'the pull request of SBX-1, the feature this task belongs to']]);
    // A fix Task whose bug has no pull request yet says where it will be.
    expect(ticketViewText(await person.readTicket('SBX-3', { diffs: false }))).toContain('(none yet: this ticket\'s work is delivered in the pull requests of SBX-2, opened when that ticket reaches implementation)');
  });

  it('prints the ticket through the real binary, and without diffs on --no-diff', async () => {
    const show = startService(['sandbox', 'show', 'SBX-1', '--data-dir', dataDir], {});
    expect(await show.exited, show.output()).toBe(0);
    expect(show.stdout()).toContain('SBX-1  Export reports as CSV');
    expect(show.stdout()).toContain('? is Excel in scope');
    expect(show.stdout()).toContain('diff --git a/src/export.ts b/src/export.ts');

    const brief = startService(['sandbox', 'show', 'SBX-1', '--no-diff', '--data-dir', dataDir], {});
    expect(await brief.exited, brief.output()).toBe(0);
    expect(brief.stdout()).toContain(`open · service/sbx-1 -> main · ${sandbox.scmhost.url}/sandbox/app/pull/1`);
    expect(brief.stdout()).not.toContain('diff --git');

    const none = startService(['sandbox', 'show', 'SBX-2', '--data-dir', dataDir], {});
    expect(await none.exited, none.output()).toBe(0);
    expect(none.stdout()).toContain('Pull requests (0)');
  });

  it('says in one line what is wrong: an unknown ticket, a sandbox that never ran', async () => {
    const unknown = startService(['sandbox', 'show', 'SBX-99', '--data-dir', dataDir], {});
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toContain('SBX-99');
    expect(unknown.output()).not.toMatch(/\n\s+at /);

    const elsewhere = mkdtempSync(join(tmpdir(), 'sandbox-show-none-'));
    try {
      const never = startService(['sandbox', 'show', 'SBX-1', '--data-dir', elsewhere], {});
      expect(await never.exited).toBe(1);
      expect(never.output()).toContain('no sandbox has run with this data directory');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
