import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readSandboxSettings } from '../../src/sandbox/sandbox-settings';
import { freePort } from '../helpers/free-port';
import { startService, type ServiceProcess } from '../helpers/service-process';
import { eventually, getJson } from '../helpers/webhooks';
import { pushCommit, remoteHeads, remoteLog, remoteUrl } from '../process/sandbox/git-over-http';

type Json = Record<string, any>;
const TOKEN = 'sandbox-restart-token';

/**
 * Issue 13, item 1: the simulators used to forget everything at a restart and hand out the same ids again, so the
 * kept workflow of the first ticket read the second ticket's facts as conflicting evidence and blocked for good.
 * Issue "Promises to a newcomer kept": the source host's git repositories were lost at a restart too (they lived in
 * a temporary folder), and a merge moved only the REST view of `main`.
 */
describe('service dev --sandbox restarted on the same data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'service-sandbox-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const startSandbox = async () => {
    const ports = { temporal: await freePort(), gateway: await freePort(), metrics: await freePort() };
    const dev = startService(['dev', '--sandbox', '--headless', '--data-dir', dataDir, '--temporal-port', String(ports.temporal)], {
      TEMPORAL_CLI_PATH: inject('temporalCliPath'),
      SERVICE_OPERATOR_TOKEN: TOKEN,
      SERVICE_TASK_QUEUE: 'it-sandbox-restart',
      SERVICE_GATEWAY_HOST: '127.0.0.1',
      SERVICE_GATEWAY_PORT: String(ports.gateway),
      SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
      SERVICE_WORKER_METRICS_PORT: String(ports.metrics),
    });
    await dev.waitForOutput(/Press Ctrl-C to stop/, 180_000);
    return { dev, api: `http://127.0.0.1:${ports.gateway}` };
  };

  /** `service sandbox ...`, the way a user acts as a person in the sandbox; resolves with its stdout. */
  const sandbox = async (...args: string[]): Promise<string> => {
    const command: ServiceProcess = startService(['sandbox', ...args, '--data-dir', dataDir], {});
    const code = await command.exited;
    expect(code, command.output()).toBe(0);
    return command.stdout().trim();
  };

  const timeline = async (api: string, key: string): Promise<Json[]> => {
    const page = await getJson(`${api}/api/v1/workflows/${key}/execution/timeline?limit=200`, TOKEN);
    return page.status === 200 ? page.body.entries as Json[] : [];
  };

  /** The source host as a person reaches it: its address and the reviewer's token from sandbox.json. */
  const sourceHost = () => {
    const settings = readSandboxSettings(join(dataDir, 'sandbox'))!;
    const token = settings.secrets.reviewer_token;
    const rest = async (path: string, init: { method?: string; body?: unknown } = {}) => {
      const response = await fetch(`${settings.urls.scmhost}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: response.status, body: await response.json() as Json };
    };
    return { remote: remoteUrl(settings.urls.scmhost, 'sandbox/app', token), rest };
  };

  const accepted = (entries: Json[], event: string) => entries.some((e) => e.kind === 'observation_decision'
    && e.status === 'accepted' && e.details?.source === 'webhook' && e.details?.event === event);
  const decided = (entries: Json[], text: string) => entries.some((e) => e.kind === 'command_decision' && JSON.stringify(e).includes(text));

  it('continues both tickets: new ids, no conflicting evidence, every comment and label accepted', async () => {
    const first = await startSandbox();
    let firstKey: string;
    let personHead = '';
    let headsBefore = new Map<string, string>();
    try {
      firstKey = await sandbox('create-ticket', 'First ticket');
      expect(firstKey).toBe('SBX-1');
      await eventually(async () => ((await timeline(first.api, firstKey)).some((e) => e.kind === 'station_attempt') ? true : undefined), 90_000, `${firstKey} through intake`);
      // A person's branch and pull request on the source host (no ticket's): pushed with git, opened through REST.
      const { remote, rest } = sourceHost();
      personHead = await pushCommit(remote, 'person/notes', { 'NOTES.md': 'kept across restarts\n' }, 'Add notes', { from: 'main' });
      expect((await rest('/repos/sandbox/app/pulls', { method: 'POST', body: { title: 'Notes', head: 'person/notes', base: 'main' } })).status).toBe(201);
      headsBefore = await remoteHeads(remote);
    } finally {
      expect(await first.dev.stop('SIGINT')).toBe(0);
    }
    expect(existsSync(join(dataDir, 'sandbox', 'tracker.json'))).toBe(true);
    expect(existsSync(join(dataDir, 'sandbox', 'git', 'sandbox', 'app.git'))).toBe(true);

    const second = await startSandbox();
    try {
      expect(second.dev.output()).toContain(`state   ${join(dataDir, 'sandbox')} (1 ticket kept`);
      expect(second.dev.output()).not.toContain('WARNING');
      // git itself still has main and the person's branch where they were, and the pull request's commit.
      const { remote, rest } = sourceHost();
      const headsAfter = await remoteHeads(remote);
      expect(headsAfter.get('main')).toBe(headsBefore.get('main'));
      expect(headsAfter.get('person/notes')).toBe(personHead);
      expect((await remoteLog(remote, ['--format=%H %s', 'main..person/notes'])).trim()).toBe(`${personHead} Add notes`);
      expect(((await rest('/repos/sandbox/app/pulls/1/files')).body as unknown as Json[]).map((f) => f.filename)).toEqual(['NOTES.md']);
      // The merge button makes a merge commit git has, and main moves in git as in REST.
      const merged = await rest('/repos/sandbox/app/pulls/1/merge', { method: 'PUT', body: {} });
      expect(merged.status).toBe(200);
      expect((await remoteHeads(remote)).get('main')).toBe(merged.body.sha);
      const mergeCommit = await rest(`/repos/sandbox/app/commits/${merged.body.sha}`);
      expect(mergeCommit.body.parents.map((parent: Json) => parent.sha)).toEqual([headsBefore.get('main'), personHead]);
      const secondKey = await sandbox('create-ticket', 'Second ticket');
      expect(secondKey).toBe('SBX-2');
      await eventually(async () => (accepted(await timeline(second.api, secondKey), 'issue_created') ? true : undefined), 90_000, `${secondKey} started`);

      for (const key of [firstKey, secondKey]) {
        await sandbox('comment', key, `After the restart, about ${key}`);
        expect(await sandbox('label', key, 'sandbox-touched')).toBe(`${key}: added sandbox-touched`);
      }
      // The banner's curl examples answer as printed: the ticket with its comments, the pull request's files.
      const banner = second.dev.output();
      const [, user = '', password = '', issueUrl = ''] = /curl -u ([^:\s]+):(\S+) '([^']+)'/.exec(banner) ?? [];
      const issue = await (await fetch(issueUrl.replace('SBX-1', firstKey), { headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } })).json() as Json;
      expect(issue.fields.comment.comments.length).toBeGreaterThan(0);
      const [, token = '', filesUrl = ''] = /curl -H "authorization: Bearer (\S+)" (\S+\/pulls\/1\/files)/.exec(banner) ?? [];
      expect((await fetch(filesUrl, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      // A person reads the ticket: its comments as text and its labels.
      const shown = await sandbox('show', firstKey);
      expect(shown).toContain(`${firstKey}  First ticket`);
      expect(shown).toContain(`After the restart, about ${firstKey}`);
      expect(shown).toMatch(/labels: .*sandbox-touched/);
      await sandbox('label', firstKey, 'service:retry');

      for (const key of [firstKey, secondKey]) {
        const entries = await eventually(async () => {
          const all = await timeline(second.api, key);
          // The comment and the label change became accepted facts, and the workflow went on to decide about them.
          return accepted(all, 'issue_commented') && decided(all, '+sandbox-touched') ? all : undefined;
        }, 90_000, `${key}: the comment and the label after the restart`);
        // One workflow per ticket, continued: the first ticket's start is still the only start.
        expect(entries.filter((e) => e.kind === 'workflow_started')).toHaveLength(1);
        const refused = entries.filter((e) => e.kind === 'observation_decision' && (e.status === 'conflict' || (e.details?.source === 'webhook' && e.status !== 'accepted')));
        expect(refused, JSON.stringify(refused, null, 2)).toEqual([]);
        expect(entries.filter((e) => /conflict/i.test(String(e.summary)))).toEqual([]);
        // And nothing blocked it: the sandbox model wrote the PRD and the ticket waits at its gate.
        expect(entries.filter((e) => e.kind === 'transition' && e.status === 'blocked').map((e) => e.summary)).toEqual([]);
      }
      // service:retry reached the first ticket's workflow as a new fact, not as a duplicate of an old changelog id.
      await eventually(async () => {
        const entries = await timeline(second.api, firstKey);
        const retry = entries.find((e) => e.kind === 'observation_decision' && e.details?.facts?.label_change?.added?.includes('service:retry'));
        return retry?.status === 'accepted' && entries.some((e) => e.kind === 'command_decision' && e.details?.command?.type === 'retry') ? true : undefined;
      }, 90_000, `${firstKey}: service:retry accepted`);
    } finally {
      expect(await second.dev.stop('SIGINT')).toBe(0);
    }
  });
});
