import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '../../..');
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports messages ESLint gives `code` placed at `filePath` (the file need not exist). */
async function importErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

function folders(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [`${dir}/${entry.name}`, ...folders(`${dir}/${entry.name}`)]);
}

describe('the layer rule of eslint.config.mjs (LAYERS)', () => {
  it('refuses an import of a layer above, at any folder depth', async () => {
    expect(await importErrors('src/providers/layer-probe.ts', "import { createApp } from '../gateway/app';"))
      .toEqual([expect.stringContaining('src/providers (layer "providers") must not import src/gateway')]);
    expect(await importErrors('src/providers/tracker/adf/layer-probe.ts', "import { runGit } from '../../../containers/git-remote';"))
      .toEqual([expect.stringContaining('must not import src/containers')]);
    expect(await importErrors('activities/layer-probe.ts', "import { createContainerStations } from './stations/container-station';"))
      .toEqual([expect.stringContaining('activities (layer "activities") must not import activities/stations')]);
  });

  it('refuses type imports from above too, except in workflow code, which needs the activities\' signatures', async () => {
    expect(await importErrors('src/config/layer-probe.ts', "import type { ScmhostClient } from '../providers/scmhost/scmhost-client';"))
      .toHaveLength(1);
    expect(await importErrors('workflows/layer-probe.ts', "import type { createEffectActivities } from '../activities/effect-activities';"))
      .toEqual([]);
    expect(await importErrors('workflows/layer-probe.ts', "import { createEffectActivities } from '../activities/effect-activities';"))
      .toHaveLength(1);
  });

  it('allows imports of the own layer and the layers below', async () => {
    expect(await importErrors('src/gateway/layer-probe.ts', "import { deliverObservation } from '../ingress/deliver-observation';\nimport { parseRepoRef } from '../providers/scmhost/repo-ref';"))
      .toEqual([]);
    expect(await importErrors('src/smoke/layer-probe.ts', "import { startWorker } from '../worker';"))
      .toEqual([]);
  });

  it('keeps the programs apart: the gateway does not import the worker', async () => {
    expect(await importErrors('src/gateway/layer-probe.ts', "import { startWorker } from '../worker';"))
      .toEqual([expect.stringContaining('programs of their own')]);
  });

  it('lets only the smoke checks and the sandbox commands use the simulators', async () => {
    const simulator = "import { startModelSimulator } from '../sandbox/model-simulator/model-simulator';";
    expect(await importErrors('src/cli/gateway.ts', simulator)).toEqual([expect.stringContaining('never imports the simulators')]);
    expect(await importErrors('src/containers/layer-probe.ts', simulator)).toEqual([expect.stringContaining('never imports the simulators')]);
    expect(await importErrors('src/cli/dev.ts', simulator)).toEqual([]);
    expect(await importErrors('src/smoke/layer-probe.ts', simulator)).toEqual([]);
    expect(await importErrors('src/cli/sandbox/layer-probe.ts', "import { actInSandbox } from '../../sandbox/sandbox-command';")).toEqual([]);
  });

  it('refuses test code in product code', async () => {
    expect(await importErrors('src/worker.ts', "import { startWorld } from '../test/helpers/world';"))
      .toEqual([expect.stringContaining('never imports test/')]);
  });

  it('covers every folder of src/, activities/ and workflows/: a folder in no layer would let this import through', async () => {
    const probes = [
      ...[...folders('src'), 'activities', ...folders('activities'), 'workflows', ...folders('workflows')].map((folder) => `${folder}/layer-probe.ts`),
      // src/ itself holds only members of their own (src/worker.ts).
      ...readdirSync(join(root, 'src')).filter((name) => name.endsWith('.ts')).map((name) => `src/${name}`),
    ];
    const unchecked: string[] = [];
    for (const probe of probes) {
      const toRoot = probe.split('/').slice(1).map(() => '..').join('/');
      const errors = await importErrors(probe, `import { startWorld } from '${toRoot}/test/helpers/world';`);
      if (errors.length === 0) unchecked.push(probe);
    }
    expect(unchecked).toEqual([]);
  });
});
