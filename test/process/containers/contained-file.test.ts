import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readContainedFile, readContainedText } from '../../../src/containers/contained-file';

const root = mkdtempSync(join(tmpdir(), 'contained-'));
const workspace = join(root, 'workspace');
const hostSecret = join(root, 'host-secret.txt');
mkdirSync(join(workspace, '.service'), { recursive: true });
writeFileSync(hostSecret, 'HOST-SECRET-CANARY');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('reading a file a container wrote', () => {
  it('reads a regular file inside the root', async () => {
    writeFileSync(join(workspace, '.service', 'notes.md'), '# notes\n');
    expect(await readContainedText(workspace, '.service/notes.md', 1000)).toBe('# notes\n');
  });

  it('refuses a file that is a symbolic link to a host file', async () => {
    symlinkSync(hostSecret, join(workspace, '.service', 'link.md'));
    const read = await readContainedFile(workspace, '.service/link.md', 1000);
    expect(read).toMatchObject({ ok: false, reason: 'link' });
    expect(JSON.stringify(read)).not.toContain('HOST-SECRET-CANARY');
  });

  it('refuses a path through a linked folder', async () => {
    symlinkSync(root, join(workspace, 'up'));
    expect(await readContainedFile(workspace, 'up/host-secret.txt', 1000)).toMatchObject({ ok: false, reason: 'link' });
  });

  it('refuses paths that leave the root', async () => {
    expect(await readContainedFile(workspace, '../host-secret.txt', 1000)).toMatchObject({ ok: false, reason: 'outside' });
    expect(await readContainedFile(workspace, hostSecret, 1000)).toMatchObject({ ok: false, reason: 'outside' });
  });

  it('refuses a hard link (it may be a host file that the container could name)', async () => {
    linkSync(hostSecret, join(workspace, 'hard.txt'));
    expect(await readContainedFile(workspace, 'hard.txt', 1000)).toMatchObject({ ok: false, reason: 'hard_link' });
  });

  it('refuses a FIFO at once instead of hanging on it', async () => {
    execFileSync('mkfifo', [join(workspace, 'fifo')]);
    expect(await readContainedFile(workspace, 'fifo', 1000)).toMatchObject({ ok: false, reason: 'not_regular' });
  });

  it('reads at most the bound of a huge sparse file', async () => {
    const big = join(workspace, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 4 * 1024 * 1024 * 1024);
    const read = await readContainedFile(workspace, 'big.bin', 4096);
    expect(read).toMatchObject({ ok: true, truncated: true, size: 4 * 1024 * 1024 * 1024 });
    if (read.ok) expect(read.bytes.length).toBe(4096);
  });

  it('says missing for a file that is not there', async () => {
    expect(await readContainedFile(workspace, 'nope.txt', 10)).toMatchObject({ ok: false, reason: 'missing' });
  });
});
