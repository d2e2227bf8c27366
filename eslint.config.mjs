import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerConfigs } from './lint/layers.mjs';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http',
  'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url',
  'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

/**
 * Workflow code is replayed: no I/O, no Node built-ins, no runtime imports from src/ or activities/ (which pull in
 * I/O; the layer rule allows their types only). Merged into the layer entries, which would otherwise replace it.
 */
function workflowImportRules(member) {
  if (member !== 'workflows') return { paths: [], patterns: [] };
  return {
    paths: [
      ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not use Node built-ins.' })),
      ...nodeBuiltins.map((name) => ({ name: `node:${name}`, message: 'Workflow code must not use Node built-ins.' })),
      { name: 'zod', message: 'Validate in activities; workflows import types only.', allowTypeImports: true },
      { name: '@temporalio/client', message: 'Workflows talk to Temporal through @temporalio/workflow only.' },
      { name: '@temporalio/worker', message: 'Workflows talk to Temporal through @temporalio/workflow only.' },
      { name: '@temporalio/activity', message: 'Workflows talk to Temporal through @temporalio/workflow only.' },
    ],
    patterns: [
      { group: ['express', 'prom-client', '@octokit/*', 'yaml'], message: 'No I/O libraries in workflow code.' },
    ],
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', '.tools/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests walk provider JSON payloads freely.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', 'test/**/*.cjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly', setTimeout: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Layers: every folder of src/, activities/ and workflows/ imports only its own layer and the layers below it
  // (lint/layers.mjs holds the order and builds one no-restricted-imports entry per folder depth).
  ...layerConfigs({ extra: workflowImportRules, typeImportsUpward: (member) => member === 'workflows' }),
  {
    // Workflow code is replayed: it must stay deterministic (see workflowImportRules for its imports).
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'fetch', message: 'No I/O in workflow code.' },
        { name: 'process', message: 'No environment access in workflow code.' },
      ],
    },
  },
);
