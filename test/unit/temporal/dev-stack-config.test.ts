import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDevStackConfig, planDevServer } from '../../../src/temporal/dev-stack-config';
import { SEARCH_ATTRIBUTE_TYPES } from '../../../workflows/messages';

const shipped = readFileSync(join(__dirname, '..', '..', '..', 'temporal-dev.yaml'), 'utf8');

describe('temporal-dev.yaml', () => {
  it('declares exactly the search attributes the workflow writes', () => {
    expect(parseDevStackConfig(shipped).search_attributes).toEqual(SEARCH_ATTRIBUTE_TYPES);
  });

  it('plans a persistent SQLite dev server with the UI on 8233', () => {
    const plan = planDevServer(parseDevStackConfig(shipped), '/srv/app');
    expect(plan.args).toEqual(expect.arrayContaining(['server', 'start-dev', '--db-filename', '/srv/app/.data/temporal.db', '--ui-port', '8233', '--port', '7233']));
    expect(plan.args).toContain('frontend.enableUpdateWorkflowExecution=true');
    // The tuned defaults (docs/operations.md "The embedded Temporal server"): WAL, synchronous=normal, more shard IO at once.
    expect(plan.args).toEqual(expect.arrayContaining(['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal', 'history.shardIOConcurrency=8']));
    expect(plan).toMatchObject({ address: '127.0.0.1:7233', uiUrl: 'http://127.0.0.1:8233', namespace: 'default' });
  });

  it('applies command-line overrides', () => {
    const plan = planDevServer(parseDevStackConfig(shipped), '/srv/app', { dataDir: '/tmp/d', port: 17233, headless: true });
    expect(plan.dbPath).toBe('/tmp/d/temporal.db');
    expect(plan.args).toContain('--headless');
    expect(plan.args).not.toContain('--ui-port');
    expect(plan.uiUrl).toBeUndefined();
  });

  it('names the field and the problem when the file is wrong', () => {
    expect(() => parseDevStackConfig('server:\n  port: seventy\n', 'x.yaml')).toThrow(/x\.yaml: server\.port/);
    expect(() => parseDevStackConfig('search_attributes:\n  Foo: Colour\n', 'x.yaml')).toThrow(/search_attributes\.Foo/);
    expect(() => parseDevStackConfig('sqlite_pragmas:\n  journal_mode: "wal; drop"\n', 'x.yaml')).toThrow(/sqlite_pragmas\.journal_mode/);
  });
});
