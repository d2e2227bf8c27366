import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(__dirname, '..', '..', 'fixtures', 'histories');

/**
 * Histories recorded from earlier builds (test/fixtures/histories/<build>-<scenario>-<run>.json, written with
 * `temporal workflow show -o json`) must replay on the current workflow code: a ticket started before an interpreter
 * change keeps running after the worker is upgraded. A change that breaks this needs `patched()`.
 */
describe('recorded histories of earlier builds replay on the current workflow code', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

  it('has histories of every recorded scenario', () => {
    const scenarios = new Set(files.map((f) => f.replace(/^(v[\d.]+)-(.*)-[0-9a-f]{8}\.json$/, '$1 $2')));
    expect([...scenarios]).toEqual(expect.arrayContaining([
      'v0.1 intake', 'v0.1 blocked-and-retried', 'v0.1 continued-as-new',
      // Recorded with the fault campaign (npm run chaos -- --light --seed S --keep) on the build before the runtime
      // became a step function (workflows/runtime): whole flows of each kind, with a second worker and lost webhooks.
      'v0.3 bug-flow', 'v0.3 feature-yolo-flow', 'v0.3 feature-gated-flow', 'v0.3 feature-ci-fix-review-flow', 'v0.3 takeover-flow',
      // Recorded on the step-function build by the integration tests that drive these features
      // (SERVICE_TEST_KEEP_HISTORIES=<folder>, test/helpers/start-world.ts): the kill switch, an applied migration,
      // a yolo start from an actor who is not allowed, a budget block, and a pull request's rebase and skip-gate.
      'v0.4 kill-switch-stop-and-retry', 'v0.4 migration-applied', 'v0.4 untrusted-yolo-ignored', 'v0.4 budget-block-and-retry',
      'v0.4 rebase-and-skip-gate',
    ]));
  });

  it('replays each without a nondeterminism error', async () => {
    const { Worker } = await import('@temporalio/worker');
    const histories = files.map((file) => ({ workflowId: file, history: JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown }));
    const results: Array<[string, string | null]> = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: join(__dirname, '..', '..', '..', 'dist', 'workflows'), replayName: 'recorded-histories' }, histories)) {
      results.push([result.workflowId, result.error ? `${result.error.name}: ${result.error.message}` : null]);
    }
    expect(results).toEqual(files.map((file) => [file, null]));
  }, 120_000);
});
