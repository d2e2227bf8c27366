import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'build-if-changed.js');

/** A two-file project of its own, compiled with this repository's TypeScript. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'build-if-changed-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'tsconfig.base.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, outDir: 'dist', rootDir: '.' } }));
  writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.base.json', include: ['src'] }));
  writeFileSync(join(root, 'package-lock.json'), '{}');
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a: number = 1;\n');
  writeFileSync(join(root, 'src', 'b.ts'), 'export const b = "b";\n');
  return root;
}

function build(root: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [SCRIPT, 'tsconfig.build.json', '--root', root], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('scripts/build-if-changed.js', () => {
  const root = project();
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds a fresh tree, skips an unchanged one, and rebuilds after a source change or deletion', { timeout: 120_000 }, () => {
    const first = build(root);
    expect(first.status).toBe(0);
    expect(first.output).toContain('build: compiling tsconfig.build.json');
    expect(readFileSync(join(root, 'dist', 'src', 'a.js'), 'utf8')).toContain('exports.a = 1');

    const second = build(root);
    expect(second.status).toBe(0);
    expect(second.output).toMatch(/build: up to date \(tsconfig\.build\.json, 5 files unchanged/);

    writeFileSync(join(root, 'src', 'a.ts'), 'export const a: number = 2;\n');
    const third = build(root);
    expect(third.output).toContain('build: compiling');
    expect(readFileSync(join(root, 'dist', 'src', 'a.js'), 'utf8')).toContain('exports.a = 2');

    rmSync(join(root, 'src', 'b.ts'));
    const fourth = build(root);
    expect(fourth.output).toContain('outputs of deleted sources removed');
    expect(existsSync(join(root, 'dist', 'src', 'b.js'))).toBe(false);
    expect(existsSync(join(root, 'dist', 'src', 'a.js'))).toBe(true);
  });

  it('fails on a type error, keeps no fingerprint, and tries again next time', { timeout: 120_000 }, () => {
    writeFileSync(join(root, 'src', 'a.ts'), 'export const a: number = "not a number";\n');
    const broken = build(root);
    expect(broken.status).not.toBe(0);
    expect(broken.output).toContain('TS2322');
    expect(existsSync(join(root, 'dist', '.build-fingerprint'))).toBe(false);
    expect(build(root).output).toContain('build: compiling');
  });
});
