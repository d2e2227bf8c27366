import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseModelConfiguration } from '../../../src/config/model-configuration';
import { SandboxPerson } from '../../../src/sandbox/sandbox-person';
import { startSandbox, userModelVariables } from '../../../src/sandbox/sandbox-stack';
import { ticketViewText } from '../../../src/sandbox/ticket-view-text';
import { gitIn } from '../../../src/sandbox/scmhost-simulator/git-smart-http';
import { pushCommit, remoteUrl } from './git-over-http';
import { loadRepositoryRegistry, resetRepositoryRegistryCache } from '../../../src/config/repository-registry';
import { requireWebhookSecrets } from '../../../src/config/webhook-secrets';
import { loadServiceConfig } from '../../../src/config/service-config';
import type { SimMergeRequest } from '../../../src/sandbox/gitlab-simulator/gitlab-simulator';

describe('the sandbox stack (simulators and their kept state, without the service)', () => {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'sandbox-stack-')), 'sandbox');
  afterAll(() => rmSync(join(stateDir, '..'), { recursive: true, force: true }));

  it('stands in for the model with a valid configuration, and keeps tickets, secrets and addresses across a restart', async () => {
    const first = await startSandbox({ stateDir, serviceStateExists: false, env: {} });
    let trackerUrl: string;
    try {
      expect(first.model).toBeDefined();
      const models = parseModelConfiguration(first.env);
      expect(models.problems).toEqual([]);
      expect(models.config?.default).toEqual({ connection: 'sandbox', model: 'sandbox-model' });
      expect(first.describe().join('\n')).toContain(`TRACKER_WEBHOOK_SECRET=${first.env.TRACKER_WEBHOOK_SECRET}`);
      first.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Feature', summary: 'Kept', labels: ['service:managed'] });
      trackerUrl = first.tracker.url;
    } finally {
      await first.close();
    }

    const second = await startSandbox({ stateDir, serviceStateExists: true, env: {} });
    try {
      expect(second.tracker.url).toBe(trackerUrl);
      expect(second.env.TRACKER_WEBHOOK_SECRET).toBe(first.env.TRACKER_WEBHOOK_SECRET);
      expect(second.tracker.state.issue('SBX-1').summary).toBe('Kept');
      expect(second.tracker.state.createIssue({ projectKey: 'SBX', issueType: 'Bug', summary: 'Next' }).key).toBe('SBX-2');
    } finally {
      await second.close();
    }

    const reports: string[] = [];
    const third = await startSandbox({ stateDir, serviceStateExists: false, env: {}, report: (line) => reports.push(line) });
    try {
      expect(reports.join('\n')).toContain('the Temporal database is new, so the simulators start from nothing too');
      expect(third.tracker.state.issues.size).toBe(0);
    } finally {
      await third.close();
    }
  });

  it('acts as CI, as a reviewer and as the person who merges: a check on the pull request head, a review asking for changes on a line, then the merge, each with its webhook', async () => {
    const sandbox = await startSandbox({ stateDir: join(stateDir, '..', 'person'), serviceStateExists: false, env: {} });
    try {
      const repo = sandbox.scmhost.state.repo('sandbox', 'app');
      // Pushed with git, as the service does: the merge is a real merge commit of this head.
      const head = await pushCommit(remoteUrl(sandbox.scmhost.url, 'sandbox/app', sandbox.env.SCMHOST_TOKEN!), 'service/sbx-7', { 'SANDBOX_CHANGES/SBX-7.md': 'rows\n' }, '[SBX-7] implement', { from: 'main' });
      sandbox.scmhost.state.createPull(repo, { title: '[SBX-7] Try me', head: 'service/sbx-7', base: 'main' }, sandbox.scmhost.state.user('service-bot'));
      const events: string[] = [];
      sandbox.scmhost.state.onEvent((event) => events.push(`${event.event}:${'action' in event ? event.action : ''}`));
      const person = await SandboxPerson.connect(join(stateDir, '..', 'person'));
      await expect(person.mergePullRequest('SBX-8')).rejects.toThrow('SBX-8 has no open pull request in sandbox/app yet');
      expect(await person.reportCheck('SBX-7', { name: 'build', conclusion: 'failure', summary: 'test failed' })).toEqual({ number: 1, sha: head });
      const runs = sandbox.scmhost.state.checkRuns.filter((run) => run.headSha === head);
      expect(runs.map((run) => [run.name, run.conclusion, run.output.summary])).toEqual([['build', 'failure', 'test failed']]);
      expect(await person.requestChanges('SBX-7', { body: 'See the line.', line: { path: 'README.md', line: 1, body: 'Name the rows.' } })).toBe(1);
      expect(sandbox.scmhost.state.reviews.map((r) => [r.state, r.body, r.user.login])).toEqual([['CHANGES_REQUESTED', 'See the line.', 'octo-reviewer']]);
      expect(sandbox.scmhost.state.reviewComments.map((c) => [c.path, c.line, c.body])).toEqual([['README.md', 1, 'Name the rows.']]);
      expect(await person.mergePullRequest('SBX-7')).toBe(1);
      const merged = sandbox.scmhost.state.pull(repo, 1);
      expect(merged).toMatchObject({ merged: true, state: 'closed' });
      expect((await gitIn(sandbox.scmhost.git.repositoryPath('sandbox/app'), ['rev-list', '--parents', '-n', '1', 'main'])).trim().split(' ')).toEqual([merged.mergeCommitSha, merged.baseSha, head]);
      expect(events).toEqual(['check_run:completed', 'pull_request_review:submitted', 'pull_request:closed']);
    } finally {
      await sandbox.close();
    }
  });

  it('delivers tracker project GLB to a GitLab project: the registry names it, the person acts on its merge requests as CI, reviewer and merger, and a restart keeps them', async () => {
    const dir = join(stateDir, '..', 'gitlab');
    const sandbox = await startSandbox({ stateDir: dir, serviceStateExists: false, env: {} });
    let mergeRequestUrl: string;
    try {
      // The service finds the project and its connection in the registry the sandbox wrote, with its credentials.
      resetRepositoryRegistryCache();
      const registry = loadRepositoryRegistry(sandbox.env);
      expect([...registry!.repositories.values()].map((r) => [r.namespace, r.connection.baseUrl])).toEqual([['sandbox/gitlab-app', sandbox.gitlab.url]]);
      const loaded = loadServiceConfig(sandbox.env);
      expect(loaded.problems).toEqual([]);
      expect(() => requireWebhookSecrets(loaded.config!, registry, sandbox.env)).not.toThrow();
      expect(sandbox.tracker.state.project('GLB').properties).toBeDefined();
      expect(sandbox.describe().join('\n')).toContain(`GitLab  ${sandbox.gitlab.url} (project sandbox/gitlab-app, for the tickets of tracker project GLB`);

      const person = await SandboxPerson.connect(dir);
      const key = await person.createTicket({ summary: 'Try me', type: 'Feature', labels: [], project: 'GLB' });
      expect(key).toBe('GLB-1');
      const head = await pushCommit(remoteUrl(sandbox.gitlab.url, 'sandbox/gitlab-app', sandbox.env.SANDBOX_GITLAB_TOKEN!), 'service/glb-1', { 'SANDBOX_CHANGES/GLB-1.md': 'rows\n' }, '[GLB-1] implement', { from: 'main' });
      const project = sandbox.gitlab.state.project('sandbox/gitlab-app');
      const mr: SimMergeRequest = { id: sandbox.gitlab.state.id(), iid: project.nextIid++, title: '[GLB-1] Try me', description: '', state: 'opened' as const, sourceBranch: 'service/glb-1', targetBranch: 'main', author: 'service-bot', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), notes: [] };
      project.mergeRequests.push(mr);
      const events: string[] = [];
      sandbox.gitlab.state.onEvent((event) => events.push(`${event.kind}:${event.kind === 'merge_request' ? event.action : event.kind === 'pipeline' ? event.pipeline.status : event.note.type ?? 'plain'}`));
      await expect(person.mergePullRequest('GLB-2')).rejects.toThrow('GLB-2 has no open merge request in sandbox/gitlab-app yet');
      expect(await person.reportCheck(key, { name: 'build', conclusion: 'failure' })).toEqual({ number: 1, sha: head });
      await expect(person.reportCheck(key, { name: 'build', conclusion: 'neutral' })).rejects.toThrow('GitLab has no pipeline that ends "neutral"');
      expect(await person.requestChanges(key, { body: 'See the line.', line: { path: 'SANDBOX_CHANGES/GLB-1.md', line: 1, body: 'Name the rows.' } })).toBe(1);
      expect(await person.requestChanges(key, { body: 'And say why.' })).toBe(1);
      expect(await person.approvePullRequest(key)).toBe(1);
      expect(await person.mergePullRequest(key)).toBe(1);
      expect(events).toEqual(['pipeline:failed', 'note:DiffNote', 'note:plain', 'merge_request:approved', 'merge_request:merge']);
      expect(mr.notes.filter((n) => !n.system).map((n) => [n.author, n.body])).toEqual([['octo-reviewer', 'Name the rows.'], ['octo-reviewer', 'And say why.']]);
      const view = await person.readTicket(key, { diffs: false });
      expect(view.pulls).toEqual([expect.objectContaining({ repository: 'sandbox/gitlab-app', number: 1, state: 'merged', head: 'service/glb-1' })]);
      mergeRequestUrl = view.pulls[0]!.url;
      // What `service sandbox show GLB-1` prints: the merge request's diff (GitLab's raw_diffs), and a link that opens.
      const shown = ticketViewText(await person.readTicket(key, { diffs: true }));
      expect(shown).toContain('diff --git a/SANDBOX_CHANGES/GLB-1.md b/SANDBOX_CHANGES/GLB-1.md');
      expect(shown).toContain('+rows');
      const page = await fetch(mergeRequestUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Name the rows.');
    } finally {
      await sandbox.close();
    }
    const again = await startSandbox({ stateDir: dir, serviceStateExists: true, env: {} });
    try {
      const person = await SandboxPerson.connect(dir);
      expect((await person.readTicket('GLB-1', { diffs: false })).pulls.map((p) => [p.url, p.state])).toEqual([[mergeRequestUrl, 'merged']]);
      expect((await gitIn(again.gitlab.git.repositoryPath('sandbox/gitlab-app'), ['log', '--format=%s', 'main'])).split('\n')).toContain('[GLB-1] implement');
    } finally {
      await again.close();
    }
  });

  it('leaves the model to the user when any model variable is set, and says so', async () => {
    expect(userModelVariables({ LLM_BACKEND: 'anthropic', LLM_MODEL: 'x', MODEL_POLICY: ' ' })).toEqual(['LLM_BACKEND', 'LLM_MODEL']);
    const sandbox = await startSandbox({ stateDir: join(stateDir, '..', 'other'), serviceStateExists: false, env: { MODEL_CONNECTIONS: '{}', MODEL_DEFAULT: '{}' } });
    try {
      expect(sandbox.model).toBeUndefined();
      expect(sandbox.env).not.toHaveProperty('MODEL_CONNECTIONS');
      expect(sandbox.describe().join('\n')).toContain('model   yours (MODEL_CONNECTIONS, MODEL_DEFAULT), not simulated');
    } finally {
      await sandbox.close();
    }
  });
});
