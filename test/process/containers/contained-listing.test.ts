import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listContainedFolder } from '../../../src/containers/contained-listing';

describe('listContainedFolder: the names in a folder a container wrote', () => {
  let root: string;
  let host: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'listing-'));
    host = mkdtempSync(join(tmpdir(), 'listing-host-'));
    writeFileSync(join(host, 'host-only-name'), '');
    mkdirSync(join(root, '.service', 'step'), { recursive: true });
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(host, { recursive: true, force: true });
  });

  it('lists a real folder', async () => {
    writeFileSync(join(root, '.service', 'step', 'a'), '');
    mkdirSync(join(root, '.service', 'step', 'b'));
    const listing = await listContainedFolder(root, '.service/step', 10);
    expect(listing).toEqual({ ok: true, names: expect.arrayContaining(['a', 'b']), cut: false });
  });

  it('stops at maxNames names and says so', async () => {
    for (let i = 0; i < 500; i += 1) writeFileSync(join(root, '.service', 'step', `f${i}`), '');
    const listing = await listContainedFolder(root, '.service/step', 100);
    expect(listing.ok && listing.names.length).toBe(100);
    expect(listing.ok && listing.cut).toBe(true);
  });

  it('does not list a host folder the folder itself links to', async () => {
    rmSync(join(root, '.service', 'step'), { recursive: true });
    symlinkSync(host, join(root, '.service', 'step'));
    expect(await listContainedFolder(root, '.service/step', 10)).toMatchObject({ ok: false, reason: 'link' });
  });

  it('does not list a host folder reached through a link on the way', async () => {
    mkdirSync(join(host, 'step'));
    writeFileSync(join(host, 'step', 'host-only-name'), '');
    rmSync(join(root, '.service'), { recursive: true });
    symlinkSync(host, join(root, '.service'));
    expect(await listContainedFolder(root, '.service/step', 10)).toMatchObject({ ok: false, reason: 'link' });
  });

  it('answers at once for a missing folder, a file, a FIFO and a path that leaves the root', async () => {
    expect(await listContainedFolder(root, '.service/none', 10)).toMatchObject({ ok: false, reason: 'missing' });
    writeFileSync(join(root, '.service', 'file'), '');
    expect(await listContainedFolder(root, '.service/file', 10)).toMatchObject({ ok: false, reason: 'not_folder' });
    execFileSync('mkfifo', [join(root, '.service', 'pipe')]);
    expect(await listContainedFolder(root, '.service/pipe', 10)).toMatchObject({ ok: false, reason: 'not_folder' });
    expect(await listContainedFolder(root, '../outside', 10)).toMatchObject({ ok: false, reason: 'outside' });
  });
});
