import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockedFolder, canTraverse, containerWorkDir, stageAgentBundle } from '../../../src/containers/mount-access';

const root = mkdtempSync(join(tmpdir(), 'mount-access-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const account = { uid: 54321, gid: 54321, name: 'service-podman', switchUser: true };

describe('can the containers\' account reach a mount', () => {
  it('reads owner, group and other search bits', () => {
    expect(canTraverse({ uid: 0, gid: 0, mode: 0o40700 }, account)).toBe(false);
    expect(canTraverse({ uid: 0, gid: 0, mode: 0o40711 }, account)).toBe(true);
    expect(canTraverse({ uid: 54321, gid: 0, mode: 0o40700 }, account)).toBe(true);
    expect(canTraverse({ uid: 0, gid: 54321, mode: 0o40710 }, account)).toBe(true);
    expect(canTraverse({ uid: 0, gid: 54321, mode: 0o40701 }, account)).toBe(false);
  });

  it('names the private folder on the way to a checkout', () => {
    const home = join(root, 'home');
    mkdirSync(join(home, 'checkout', '.data'), { recursive: true });
    chmodSync(home, 0o700);
    expect(blockedFolder(join(home, 'checkout', '.data', 'workspaces'), account)).toMatchObject({ dir: home, mode: 0o700 });
    expect(blockedFolder(join(root, 'elsewhere', 'workspaces'), account)).toBeUndefined();
  });
});

describe('the work folder of container stations', () => {
  const home = join(root, 'private-home');
  const defaultDir = join(home, 'checkout', '.data', 'workspaces');
  mkdirSync(defaultDir, { recursive: true });
  chmodSync(home, 0o700);

  it('keeps a private work folder whose parents the account can pass (the worker opens the folder itself)', () => {
    const own = join(root, 'own-work');
    mkdirSync(own, { mode: 0o700 });
    expect(containerWorkDir({ workDir: own, explicit: true, account })).toEqual({ workDir: own });
  });

  it('keeps a folder the account can reach, and any folder for a rootless worker', () => {
    expect(containerWorkDir({ workDir: join(root, 'open', 'workspaces'), explicit: false, account })).toEqual({ workDir: join(root, 'open', 'workspaces') });
    expect(containerWorkDir({ workDir: defaultDir, explicit: false, account: { ...account, switchUser: false } })).toEqual({ workDir: defaultDir });
  });

  it('moves the default folder out of a private checkout, and says so', () => {
    const fallbackRoot = join(root, 'var-lib-service');
    const chosen = containerWorkDir({ workDir: defaultDir, explicit: false, account, fallbackRoot });
    expect(chosen.workDir.startsWith(`${fallbackRoot}/w-`)).toBe(true);
    expect(chosen.moved).toContain(`${home} (mode 0700`);
    expect(statSync(chosen.workDir).mode & 0o777).toBe(0o711);
    expect(blockedFolder(chosen.workDir, account)).toBeUndefined();
    // The same checkout always gets the same folder, so a restarted worker finds its workspaces.
    expect(containerWorkDir({ workDir: defaultDir, explicit: false, account, fallbackRoot }).workDir).toBe(chosen.workDir);
  });

  it('never moves a folder the operator chose: it says what to change', () => {
    const chosen = containerWorkDir({ workDir: defaultDir, explicit: true, account });
    expect(chosen.workDir).toBe(defaultDir);
    expect(chosen.unreachable).toMatch(/CONTAINER_WORK_DIR .* cannot be reached by the container account service-podman: .*private-home \(mode 0700.*every container station will fail.*chmod o\+x/);
  });

  it('stages the agent bundle inside the work folder, once per content', () => {
    const bundle = join(home, 'checkout', 'agent.cjs');
    writeFileSync(bundle, 'console.log("agent")\n');
    const workDir = join(root, 'stage-work');
    mkdirSync(workDir);
    const first = stageAgentBundle(bundle, workDir);
    expect(first.startsWith(join(workDir, '.agent', 'agent-'))).toBe(true);
    expect(readFileSync(first, 'utf8')).toBe('console.log("agent")\n');
    expect(statSync(first).mode & 0o777).toBe(0o644);
    expect(blockedFolder(first, account)).toBeUndefined();
    expect(stageAgentBundle(bundle, workDir)).toBe(first);
    writeFileSync(bundle, 'console.log("agent v2")\n');
    const second = stageAgentBundle(bundle, workDir);
    expect(second).not.toBe(first);
    expect(existsSync(first)).toBe(true);
  });
});
