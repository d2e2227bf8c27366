import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Config } from '@oclif/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox-stack';
import { accountIdForEmail } from '../../../src/sandbox/tracker-simulator/tracker-state';
import { startService } from '../../helpers/service-process';
import { pushCommit, remoteUrl } from '../sandbox/git-over-http';

/**
 * `service sandbox <person command> --as <email>` and `service sandbox commit-main`, through the real binary (dist/,
 * built by `npm test`) against the simulators of a sandbox stack started here (no Temporal needed): the flag parses
 * on every person command, the tracker and the source host record the person, a conflict pushed to main makes the
 * merge fail in one line, and bad input is one line and exit 1.
 */
describe('service sandbox ... --as, and commit-main', () => {
  const root = join(__dirname, '..', '..', '..');
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-person-commands-'));
  let sandbox: Sandbox;
  const run = async (...args: string[]) => {
    const child = startService(['sandbox', ...args, '--data-dir', dataDir], {});
    const code = await child.exited;
    return { code, stdout: child.stdout(), output: child.output() };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ stateDir: join(dataDir, 'sandbox'), serviceStateExists: false, env: {} });
    sandbox.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'Export reports', labels: ['service:managed'] });
    const scm = sandbox.scmhost;
    await pushCommit(remoteUrl(scm.url, 'sandbox/app', sandbox.env.SCMHOST_TOKEN!), 'service/sbx-1', { 'SANDBOX_CHANGES/SBX-1.md': 'by the agent\n' }, '[SBX-1] implement', { from: 'main' });
    scm.state.createPull(scm.state.repo('sandbox', 'app'), { title: '[SBX-1] Export reports', head: 'service/sbx-1', base: 'main' }, scm.state.user('service-bot'));
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('offers --as on every command of a person', async () => {
    const config = await Config.load(root);
    const ids = config.commandIDs.filter((id) => id.startsWith('sandbox:'));
    expect(ids).toEqual(expect.arrayContaining(['sandbox:create-ticket', 'sandbox:comment', 'sandbox:label', 'sandbox:approve', 'sandbox:check', 'sandbox:review', 'sandbox:merge', 'sandbox:commit-main']));
    for (const id of ids) expect(Object.keys((await config.findCommand(id)!.load()).flags ?? {}), id).toContain('as');
  });

  it('comments, labels, creates and reviews as the person given', async () => {
    const sam = accountIdForEmail('sam@example.com');
    expect((await run('comment', 'SBX-1', '/service approve', '--as', 'sam@example.com')).code).toBe(0);
    expect(sandbox.tracker.state.issue('SBX-1').comments.at(-1)?.author).toMatchObject({ accountId: sam, emailAddress: 'sam@example.com' });
    expect((await run('label', 'SBX-1', 'service:retry', '--as', 'sam@example.com')).code).toBe(0);
    expect(sandbox.tracker.state.issue('SBX-1').histories.at(-1)?.author).toMatchObject({ accountId: sam });
    const created = await run('create-ticket', 'Filed by Sam', '--as', 'sam@example.com');
    expect(created.code, created.output).toBe(0);
    expect(sandbox.tracker.state.issue(created.stdout.trim()).creator).toMatchObject({ accountId: sam });
    expect((await run('approve', 'SBX-1', '--pr', '--as', 'sam@example.com')).code).toBe(0);
    expect(sandbox.scmhost.state.reviews.at(-1)).toMatchObject({ state: 'APPROVED', user: { login: 'sam' } });
    // Without --as: pat in the tracker, as before.
    expect((await run('comment', 'SBX-1', 'hello')).code).toBe(0);
    expect(sandbox.tracker.state.issue('SBX-1').comments.at(-1)?.author.emailAddress).toBe('pat@example.com');
  });

  it('pushes a conflicting edit to main, after which the merge is refused in one line', async () => {
    const pushed = await run('commit-main', 'SANDBOX_CHANGES/SBX-1.md', 'Edited on main meanwhile', '--as', 'sam@example.com');
    expect(pushed.code, pushed.output).toBe(0);
    expect(pushed.stdout).toMatch(/^sandbox\/app: pushed [0-9a-f]{7} to main \(SANDBOX_CHANGES\/SBX-1\.md\) as sam$/m);
    const merge = await run('merge', 'SBX-1');
    expect(merge.code).toBe(1);
    // oclif wraps the line to the terminal: read it as one.
    expect(merge.output.replace(/\s*\n\s*›?\s*/g, ' ')).toContain('405 {"message":"Pull Request is not mergeable"');
    expect(merge.output).not.toMatch(/\n\s+at /);
  });

  it('says in one line what is wrong with --as or a path, and changes nothing', async () => {
    const comments = sandbox.tracker.state.issue('SBX-1').comments.length;
    const notEmail = await run('comment', 'SBX-1', 'x', '--as', 'sam');
    expect(notEmail.code).toBe(1);
    expect(notEmail.output.replace(/\s*\n\s*›?\s*/g, ' ')).toContain('--as takes an e-mail address such as someone@example.com, got "sam"');
    const service = await run('comment', 'SBX-1', 'x', '--as', 'service@sandbox.local');
    expect(service.code).toBe(1);
    expect(service.output).toContain('the service\'s own account');
    expect(sandbox.tracker.state.issue('SBX-1').comments).toHaveLength(comments);
    const main = sandbox.scmhost.state.repo('sandbox', 'app').branches.get('main');
    const escape = await run('commit-main', '../outside.md', 'x');
    expect(escape.code).toBe(1);
    expect(escape.output.replace(/\s*\n\s*›?\s*/g, ' ')).toContain('the path "../outside.md" has an empty, "." or ".." part');
    expect(escape.output).not.toMatch(/\n\s+at /);
    expect(sandbox.scmhost.state.repo('sandbox', 'app').branches.get('main')).toBe(main);
  });
});
