import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { filesystemTools } from '../../../src/skill-testing/filesystem-tools';

type Exec = (input: unknown, options: unknown) => Promise<string>;

describe('test-skill filesystem tools', () => {
  let repo: string;
  let out: string;
  let written: string[];
  let tools: ReturnType<typeof filesystemTools>;
  const call = (name: string, input: unknown) => (tools[name]!.execute as Exec)(input, {});

  beforeEach(() => {
    const base = mkdtempSync(join(tmpdir(), 'skill-fs-'));
    repo = join(base, 'api');
    out = join(base, 'out');
    mkdirSync(join(repo, 'src'), { recursive: true });
    mkdirSync(join(repo, '.git'));
    writeFileSync(join(repo, 'README.md'), 'API service\nexports reports\n');
    writeFileSync(join(repo, 'src', 'export.ts'), 'export function exportCsv() {}\nconst token = "ghp_abcdefghijklmnopqrstuvwxyz0123";\n');
    writeFileSync(join(repo, '.git', 'config'), 'exportCsv in git\n');
    writeFileSync(join(base, 'secret.txt'), 'outside');
    symlinkSync(join(base, 'secret.txt'), join(repo, 'link.txt'));
    written = [];
    tools = filesystemTools({ repositories: [{ name: 'acme/api', folder: repo }, { name: 'acme/web', folder: null }], outputDir: out, written });
  });

  it('offers read-only tools and write_file, and no shell', () => {
    expect(Object.keys(tools).sort()).toEqual(['list_files', 'read_file', 'search_files', 'write_file']);
  });

  it('lists, reads and searches a repository, skipping .git and redacting credentials', async () => {
    expect(await call('list_files', { repository: 'acme/api' })).toBe('README.md\nsrc/\nsrc/export.ts');
    expect(await call('read_file', { repository: 'acme/api', path: 'README.md', start_line: 2 })).toBe('exports reports\n');
    const hits = await call('search_files', { pattern: 'exportCsv|token' });
    expect(hits).toContain('acme/api:src/export.ts:1: export function exportCsv() {}');
    expect(hits).toContain('[REDACTED]');
    expect(hits).not.toContain('ghp_');
    expect(hits).not.toContain('in git');
  });

  it('refuses paths that leave the repository, also through a symbolic link, and unknown repositories', async () => {
    expect(await call('read_file', { repository: 'acme/api', path: '../secret.txt' })).toMatch(/^error: .*outside the workspace/);
    expect(await call('read_file', { repository: 'acme/api', path: 'link.txt' })).toMatch(/^error: link.txt leads outside the repository/);
    expect(await call('read_file', { repository: 'acme/web', path: 'x' })).toMatch(/^error: no repository "acme\/web"/);
  });

  it('writes generated files into the output folder only, never over response.json or trace.json', async () => {
    expect(await call('write_file', { path: 'docs/prd.md', content: '# PRD' })).toBe('wrote 5 characters to docs/prd.md');
    expect(readFileSync(join(out, 'docs', 'prd.md'), 'utf8')).toBe('# PRD');
    expect(await call('write_file', { path: 'trace.json', content: '{}' })).toMatch(/written by the test runner/);
    expect(await call('write_file', { path: '../escape.md', content: 'x' })).toMatch(/outside the workspace/);
    expect(existsSync(join(out, 'trace.json'))).toBe(false);
    expect(written).toEqual(['docs/prd.md']);
  });
});
