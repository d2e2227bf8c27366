#!/usr/bin/env node
// Builds a TypeScript project only when something it reads changed since its last successful build, so that
// `npm run dev` on an unchanged tree starts in seconds instead of waiting 40 s for tsc to redo the same work.
//
// Usage: node scripts/build-if-changed.js [tsconfig.build.json] [--root DIR] [--force]
//
// The fingerprint is a hash of the contents of every file under the project's `include` folders, the tsconfig chain
// and package-lock.json (a dependency update can change types); it is written next to the output (`<outDir>/
// .build-fingerprint`) only after tsc succeeded. Contents, not modification times: a checkout that touches files
// without changing them does not rebuild, and a copy that keeps old times still does. When a build is needed, tsc
// runs with --incremental, and outputs whose source is gone are deleted (oclif would still load a removed command).
'use strict';
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

function parseArgs(argv) {
  const args = { config: 'tsconfig.build.json', root: resolve(__dirname, '..'), force: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') args.root = resolve(argv[++i]);
    else if (argv[i] === '--force') args.force = true;
    else args.config = argv[i];
  }
  return args;
}

/** The tsconfig chain (a config and the ones it extends), with the settings the fingerprint needs. */
function readConfigChain(path) {
  const files = [];
  let include;
  let outDir;
  let current = path;
  while (current) {
    files.push(current);
    const json = JSON.parse(readFileSync(current, 'utf8'));
    include ??= json.include;
    if (outDir === undefined && json.compilerOptions?.outDir) outDir = resolve(dirname(current), json.compilerOptions.outDir);
    current = json.extends ? resolve(dirname(current), json.extends) : undefined;
  }
  return { files, include: include ?? ['.'], outDir };
}

function listFiles(dir, into) {
  if (!existsSync(dir)) return into;
  if (statSync(dir).isFile()) {
    into.push(dir);
    return into;
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(path, into);
    else if (entry.isFile()) into.push(path);
  }
  return into;
}

function fingerprint(root, chain) {
  // `include` entries are folders here; a glob keeps its folder part.
  const folders = chain.include.map((pattern) => join(root, pattern.split(/[*?{]/)[0] || '.'));
  const files = [...new Set([...folders.flatMap((folder) => listFiles(folder, [])), ...chain.files, join(root, 'package-lock.json')])]
    .filter((file) => existsSync(file))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return { value: hash.digest('hex'), sources: files };
}

/** Deletes `x.js`, `x.js.map` and `x.d.ts` under the output folder when neither `x.ts` nor `x.js` exists in the tree. */
function removeOrphans(root, outDir) {
  let removed = 0;
  for (const output of listFiles(outDir, [])) {
    const match = /^(.*)\.(js|js\.map|d\.ts)$/.exec(relative(outDir, output));
    if (!match) continue;
    const base = join(root, match[1]);
    if (!['.ts', '.mts', '.cts', '.js', '.json'].some((ext) => existsSync(base + ext))) {
      rmSync(output);
      removed++;
    }
  }
  return removed;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const configPath = resolve(args.root, args.config);
  const chain = readConfigChain(configPath);
  const outDir = chain.outDir ?? args.root;
  const stamp = join(outDir, '.build-fingerprint');
  const started = Date.now();
  const before = fingerprint(args.root, chain);
  if (!args.force && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === before.value) {
    console.error(`build: up to date (${args.config}, ${before.sources.length} files unchanged, checked in ${Date.now() - started} ms)`);
    return 0;
  }
  console.error(`build: compiling ${args.config} (tsc --incremental)...`);
  const tsc = require.resolve('typescript/bin/tsc', { paths: [args.root, __dirname] });
  const result = spawnSync(process.execPath, [tsc, '-p', configPath, '--incremental'], { cwd: args.root, stdio: 'inherit' });
  if (result.status !== 0) {
    // No fingerprint: the next run builds again (and shows the same errors) instead of starting stale code.
    rmSync(stamp, { force: true });
    return result.status ?? 1;
  }
  const removed = removeOrphans(args.root, outDir);
  // The fingerprint of what was compiled, taken before tsc ran: an edit made during the build rebuilds next time.
  writeFileSync(stamp, `${before.value}\n`);
  console.error(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s${removed ? ` (${removed} outputs of deleted sources removed)` : ''}`);
  return 0;
}

process.exitCode = main();
