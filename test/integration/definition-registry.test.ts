import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinDefinition } from '../../src/definition-rules/definition-digest';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import type { TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import type { WorkflowDefinition } from '../../workflows/built-in-definitions/definition-types';
import { startService } from '../helpers/service-process';
import type { ServiceStack } from '../helpers/service-stack';
import { startWorld, type World } from '../helpers/start-world';
import { eventually, getJson } from '../helpers/webhooks';

const SECRET = 'registry-tracker-secret';
const TOKEN = 'registry-operator-token';
const TASK_QUEUE = 'it-definition-registry';
type Json = Record<string, any>;

/** The feature graph of this test: a PRD, its approval gate, then (r3) a spec or (r4, no spec station) the end. */
function feature(revision: number, approvedTo: 'generate_spec' | 'done'): WorkflowDefinition {
  return {
    apiVersion: 'service/v1', name: 'feature', revision, entry: 'generate_prd',
    description: approvedTo === 'done' ? 'PRD only' : 'PRD, then a spec',
    nodes: {
      generate_prd: { kind: 'station', station: 'generate_prd', model_key: 'generate_prd', on: { generated: 'prd_gate' } },
      prd_gate: {
        kind: 'gate', gate: 'artifact_approval', artifact: 'prd', pending_label: 'service:prd-pending', approved_label: 'service:prd-approved',
        accepts: ['service:prd-approved'], waiting_for: 'approval of the PRD', on: { approved: approvedTo },
      },
      ...(approvedTo === 'generate_spec' ? { generate_spec: { kind: 'station', station: 'generate_spec', model_key: 'generate_spec', on: { generated: 'done' } } } as const : {}),
      done: { kind: 'end', result: 'completed' },
    },
  };
}

describe('the definition registry: publishing pins nothing in flight; migration is explicit', () => {
  let world: World;
  let tracker: TrackerSimulator;
  let stack: ServiceStack;
  const files = mkdtempSync(join(tmpdir(), 'definitions-'));

  beforeAll(async () => {
    world = await startWorld({
      name: 'definition-registry',
      tracker: { projects: ['RG'] },
      worker: 'registry-test',
      operatorToken: TOKEN,
      env: { SERVICE_TASK_QUEUE: TASK_QUEUE, TRACKER_WEBHOOK_SECRET: SECRET, SERVICE_EFFECT_TIMEOUT_SECONDS: '5', SERVICE_POLL_INTERVAL_SECONDS: '0' },
    });
    ({ tracker, stack } = world);
  });

  afterAll(async () => {
    await world?.close();
    rmSync(files, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const command = startService(args, stack.env);
    const code = await command.exited;
    return { code, stdout: command.stdout(), output: command.output() };
  };
  const file = (name: string, content: unknown) => {
    const path = join(files, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  };
  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, TOKEN)).body as Json;
  const written = (key: string) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body));
  const waitFor = (key: string, what: string, predicate: (view: Json) => boolean) => eventually(async () => {
    const view = await execution(key);
    return view.ticket_key && predicate(view) ? view : undefined;
  }, 90_000, `${key}: ${what}`).catch(async (error: Error) => {
    throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 2000)}; comments: ${JSON.stringify(written(key))}; worker: ${stack.worker.output().slice(-3000)}`);
  });
  const atGate = (view: Json) => view.current_position === 'prd_gate' && view.checkpoint.is_paused && written(view.ticket_key).length === 1;
  const newTicket = () => tracker.state.createIssue({ projectKey: 'RG', issueType: 'Story', summary: 'Export reports', labels: ['service:managed'] }).key;

  it('validates on publish, naming every problem; refuses a taken revision; publishing the same digest again changes nothing', async () => {
    const base = feature(2, 'generate_spec');
    const invalid = { ...base, nodes: { ...base.nodes, generate_prd: { kind: 'station', station: 'run_shell', params: { script: 'curl https://example.com' }, on: { generated: 'prd_gate' } } } };
    const refused = await cli('definitions', 'publish', file('invalid.json', invalid));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.output).toContain('is not a valid definition (2 problems)');
    expect(refused.output).toContain('nodes.generate_prd: unknown station "run_shell"');
    expect(refused.output).toContain('definition: contains a URL or a credential-like assignment');

    const notJson = await cli('definitions', 'publish', file('broken.json', '{ "apiVersion": '));
    expect(notJson.code).toBe(1);
    expect(notJson.output).toMatch(/broken\.json: cannot read it as JSON/);

    const first = await cli('definitions', 'publish', file('feature-r3.json', feature(3, 'generate_spec')));
    expect(first.output).toContain(`published feature r3 (digest ${pinDefinition(feature(3, 'generate_spec')).digest})`);
    expect(first.code).toBe(0);
    const again = await cli('definitions', 'publish', file('feature-r3.json', feature(3, 'generate_spec')), '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'unchanged', created: false, name: 'feature', revision: 3 });
    // Its gate accepts the approval by its label, as bodies from before the trigger ids did: published, with a warning.
    const warning = 'nodes.prd_gate.accepts: "service:prd-approved" is the label of the trigger "prd_approved"; write "prd_approved"';
    expect(first.output).toContain(`warning: ${join(files, 'feature-r3.json')}: ${warning}`);
    expect(JSON.parse(again.stdout).warnings).toEqual([expect.stringContaining(warning)]);
    const taken = await cli('definitions', 'publish', file('feature-r3-other.json', feature(3, 'done')));
    expect(taken.code).toBe(1);
    expect(taken.output).toMatch(/the registry refused .*feature-r3-other\.json: feature r3 is already published with digest [0-9a-f]{12}…; publish the change as r4/);
    const old = await cli('definitions', 'publish', file('feature-r2.json', { ...feature(2, 'done') }));
    expect(old.code).toBe(1);
    expect(old.output).toContain('feature r2 is not newer than the latest revision, r3; publish it as r4');

    const listed = (await getJson(`${stack.api}/api/v1/definitions`, TOKEN)).body as Json;
    expect(listed.definitions.filter((d: Json) => d.name === 'feature').map((d: Json) => [d.revision, d.source, d.latest])).toEqual([[2, 'built_in', false], [3, 'published', true]]);
    expect((await getJson(`${stack.api}/api/v1/definitions`)).status).toBe(401);
  });

  it('keeps a ticket on the revision it started on, starts new tickets on the newest, and migrates only with an explicit mapping', async () => {
    // Two tickets start on r3 (published above): one will stay, one will be migrated.
    const staying = newTicket();
    const moving = newTicket();
    for (const key of [staying, moving]) {
      const view = await waitFor(key, 'at the PRD gate on r3', atGate);
      expect(view.definition).toEqual({ name: 'feature', revision: 3, digest: pinDefinition(feature(3, 'generate_spec')).digest });
      expect(view.migration).toBeNull();
    }

    // r4: approval of the PRD ends the ticket (no spec). A ticket started now pins it.
    const published = await cli('definitions', 'publish', file('feature-r4.json', feature(4, 'done')));
    expect(published.code).toBe(0);
    const list = await cli('definitions', 'list', '--json');
    expect(JSON.parse(list.stdout).definitions.filter((d: Json) => d.name === 'feature' && d.latest).map((d: Json) => d.revision)).toEqual([4]);
    const fresh = newTicket();
    expect((await waitFor(fresh, 'at the PRD gate on r4', atGate)).definition.revision).toBe(4);
    expect((await execution(staying)).definition.revision).toBe(3);

    // Without a mapping the changed gate is named and nothing moves, as a dry run and as --apply.
    const dry = await cli('migrate', moving, '--to', '4');
    expect(dry.code).toBe(1);
    expect(dry.output).toContain(`${moving}: feature r3 → r4: not eligible:\n  - the ticket stands at prd_gate, which changed in feature r4 (on.approved: generate_spec → done): confirm where it stands with --map prd_gate=<node of r4>`);
    expect((await execution(moving)).migration).toMatchObject({ eligible: false, dry_run: true, applied: false, from: { revision: 3 }, to: { revision: 4 } });
    const refused = await cli('migrate', moving, '--to', '4', '--apply');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('refused:\n  - the ticket stands at prd_gate, which changed in feature r4');
    expect((await execution(moving)).definition.revision).toBe(3);
    const unknown = await cli('migrate', moving, '--to', '7');
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('feature has no revision 7 (known: r2, r3, r4)');

    // The HTTP route: a dry run by default, 409 naming the incompatibility when applied without a mapping.
    const post = (body: unknown) => fetch(`${stack.api}/api/v1/workflows/${moving}/migration`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const httpRefused = await post({ to_revision: 4, apply: true });
    expect(httpRefused.status).toBe(409);
    expect(((await httpRefused.json()) as Json).error.message).toContain('prd_gate, which changed in feature r4');
    const httpDry = await post({ to_revision: 4, mapping: { prd_gate: 'prd_gate' } });
    expect(httpDry.status).toBe(200);
    expect(((await httpDry.json()) as Json).migration).toMatchObject({ eligible: true, dry_run: true, applied: false, target_node: 'prd_gate' });
    expect((await execution(moving)).definition.revision).toBe(3);

    const applied = await cli('migrate', moving, '--to', '4', '--map', 'prd_gate=prd_gate', '--apply');
    expect(applied.output).toContain(`${moving}: feature r3 → r4: migrated; the ticket now stands at prd_gate on r4`);
    expect(applied.code).toBe(0);
    const migrated = await execution(moving);
    expect(migrated).toMatchObject({
      definition: { revision: 4, digest: pinDefinition(feature(4, 'done')).digest }, current_position: 'prd_gate', checkpoint: { is_paused: true },
      migration: { eligible: true, applied: true, dry_run: false, mapping: { prd_gate: 'prd_gate' }, requested_by: expect.stringMatching(/^cli:/) },
    });
    const timeline = (await getJson(`${stack.api}/api/v1/workflows/${moving}/execution/timeline?limit=200`, TOKEN)).body as Json;
    expect(timeline.entries.filter((e: Json) => e.kind === 'operator_action').map((e: Json) => e.status))
      .toEqual(['migration_refused', 'migration_refused', 'migration_refused', 'migration_eligible', 'migration_applied']);

    // Approval: the ticket that stayed on r3 writes its spec; the migrated one and the new one end at approval (r4).
    for (const key of [staying, moving, fresh]) tracker.state.updateLabels(key, [{ add: 'service:prd-approved' }]);
    for (const key of [staying, moving, fresh]) await waitFor(key, 'completed', (v) => v.status === 'completed');
    expect(written(staying).map((c) => c.split(' (')[0])).toEqual([`PRD of ${staying}`, `Spec of ${staying}`]);
    expect(written(moving).map((c) => c.split(' (')[0])).toEqual([`PRD of ${moving}`]);
    expect(written(fresh).map((c) => c.split(' (')[0])).toEqual([`PRD of ${fresh}`]);
  });
});
