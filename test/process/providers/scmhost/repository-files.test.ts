import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScmhostClient, type ScmhostClient } from '../../../../src/providers/scmhost/scmhost-client';
import { startScmhostSimulator, type ScmhostSimulator } from '../../../../src/sandbox/scmhost-simulator/scmhost-simulator';

describe('reading repository files through the source-host API (the planning model\'s tools)', () => {
  let sim: ScmhostSimulator;
  let client: ScmhostClient;
  const api = { owner: 'acme', repo: 'api' };

  beforeAll(async () => {
    sim = await startScmhostSimulator({ repositories: ['acme/api'], tokens: { 'file-token': 'service-bot' } });
    client = await createScmhostClient({ token: 'file-token', baseUrl: sim.url, timeoutMs: 2_000 });
    const repo = sim.state.repo('acme', 'api');
    sim.state.putFile(repo, 'README.md', '# API\n');
    sim.state.putFile(repo, 'src/reports/export.ts', `export const formats = ['pdf'];\n${'// filler\n'.repeat(20)}`);
  });
  afterAll(async () => sim?.close());

  it('lists the files of the default branch, directories left out', async () => {
    expect(await client.listFiles(api)).toEqual({ paths: ['README.md', 'src/reports/export.ts'], truncated: false });
  });

  it('reads a nested file\'s text and says when a file does not exist', async () => {
    const file = await client.readFile(api, 'src/reports/export.ts');
    expect(file?.text.startsWith("export const formats = ['pdf'];\n")).toBe(true);
    expect(file?.size).toBe(Buffer.byteLength(file!.text));
    expect(await client.readFile(api, 'src/missing.ts')).toBeUndefined();
  });
});
