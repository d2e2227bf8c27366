import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http',
  'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url',
  'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

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
  {
    // Dependencies point one way (DESIGN.md §2): commands -> worker/gateway -> activities/ingress -> providers/config
    // -> workflows' types. The gateway is only the Express edge, so nothing below it imports it.
    files: ['src/ingress/**/*.ts', 'src/temporal/**/*.ts', 'src/poller/**/*.ts', 'src/providers/**/*.ts', 'src/config/**/*.ts', 'activities/**/*.ts', 'src/worker.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/gateway/**', '**/commands/**'], message: 'Only commands use the gateway; share code through src/ingress or src/temporal.' },
        ],
      }],
    },
  },
  {
    files: ['src/providers/**/*.ts', 'src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/gateway/**', '**/commands/**', '**/ingress/**', '**/poller/**', '**/activities/**'], message: 'Providers and configuration sit below ingress and activities.' },
        ],
      }],
    },
  },
  {
    // Workflow code is replayed: it must stay deterministic, so no I/O, no Node built-ins and no runtime imports
    // from src/ (which pulls in I/O). Types may be imported.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not use Node built-ins.' })),
          ...nodeBuiltins.map((name) => ({ name: `node:${name}`, message: 'Workflow code must not use Node built-ins.' })),
          { name: 'zod', message: 'Validate in activities; workflows import types only.', allowTypeImports: true },
          { name: '@temporalio/client', message: 'Workflows talk to Temporal through @temporalio/workflow only.' },
          { name: '@temporalio/worker', message: 'Workflows talk to Temporal through @temporalio/workflow only.' },
          { name: '@temporalio/activity', message: 'Workflows talk to Temporal through @temporalio/workflow only.' },
        ],
        patterns: [
          { group: ['../src/*', '../../src/*', '../activities/*', '../../activities/*'], message: 'Workflows import only types from src/ and activities/.', allowTypeImports: true },
          { group: ['express', 'prom-client', '@octokit/*', 'yaml'], message: 'No I/O libraries in workflow code.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'fetch', message: 'No I/O in workflow code.' },
        { name: 'process', message: 'No environment access in workflow code.' },
      ],
    },
  },
);
