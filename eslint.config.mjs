import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http',
  'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url',
  'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

/**
 * The layers of the product code, lowest first. A folder may import its own layer and the layers below it, never a
 * layer above it (DESIGN.md §2: dependencies point one way). Every folder of src/, activities/ and workflows/ is in
 * exactly one layer; test/unit/lint/layers.test.ts fails when a folder is missing, so a new folder needs a decision.
 * A file listed here (src/worker.ts) is a layer member on its own.
 */
const LAYERS = [
  // Deterministic workflow code, replayed by Temporal. Above it everything may use its types and messages; it uses
  // only types from above (the activities' signatures), see workflowImportRules below.
  { name: 'workflow code', members: ['workflows'] },
  // Knows no external system and no configuration.
  { name: 'foundation', members: ['src/redaction', 'src/logging', 'src/process', 'src/http', 'src/budgets', 'src/metrics'] },
  { name: 'configuration', members: ['src/config'] },
  // Clients of the tracker, the source hosts and git remotes.
  { name: 'providers', members: ['src/providers'] },
  // src/agent is the program inside the container; the container runtime and the stations use its task contract.
  { name: 'building blocks', members: ['src/definition-rules', 'src/tracing', 'src/agent', 'src/skill-loading', 'src/planning-context'] },
  { name: 'runtimes', members: ['src/temporal', 'src/models', 'src/containers'] },
  // What the gateway, the poller and the worker share: normalising and routing deliveries, readiness checks.
  { name: 'ingress and health', members: ['src/ingress', 'src/health'] },
  { name: 'poller', members: ['src/poller'] },
  // The console's pages over the read model (issue 45); the gateway serves them.
  { name: 'console', members: ['src/console'] },
  { name: 'activities', members: ['activities'] },
  { name: 'stations', members: ['activities/stations'] },
  // Programs. They do not import each other.
  { name: 'programs', members: ['src/worker.ts', 'src/gateway', 'src/skill-testing', 'src/sandbox'], isolated: true },
  // The smoke checks start a worker and the model simulator.
  { name: 'smoke checks', members: ['src/smoke'] },
  { name: 'command line', members: ['src/cli'] },
];

/** The simulators: product code never imports them. Only these may, besides the simulators themselves. */
const SIMULATORS = 'src/sandbox';
const SIMULATOR_USERS = ['src/smoke', 'src/cli/dev.ts', 'src/cli/sandbox'];

/** Never imported by product code. */
const OUTSIDE_PRODUCT = ['test', 'bench', 'chaos', 'scripts'];

const withoutTs = (member) => member.replace(/\.ts$/, '');
const isFile = (member) => member.endsWith('.ts');
const within = (member, folder) => {
  const [inner, outer] = [withoutTs(member), withoutTs(folder)];
  return inner === outer || inner.startsWith(`${outer}/`);
};

/** The layer index of a member, or of the member it sits in (activities/stations/x is in stations, not activities). */
function layerOf(member) {
  let best;
  LAYERS.forEach((layer, index) => {
    for (const candidate of layer.members) {
      if (within(member, candidate) && (!best || candidate.length > best.candidate.length)) best = { index, candidate };
    }
  });
  return best;
}

/** What one member may not import: layers above it, isolated peers, the simulators, test and benchmark code. */
function forbiddenFor(member) {
  const own = layerOf(member);
  if (!own) throw new Error(`${member} is in no layer of LAYERS in eslint.config.mjs`);
  const forbidden = [];
  LAYERS.forEach((layer, index) => {
    const peers = index === own.index && layer.isolated;
    if (index <= own.index && !peers) return;
    for (const target of layer.members) {
      if (peers && target === own.candidate) continue;
      forbidden.push({ target, layer: layer.name, above: index > own.index });
    }
  });
  const simulatorUser = within(member, SIMULATORS) || SIMULATOR_USERS.some((user) => within(member, user));
  if (!simulatorUser && !forbidden.some((entry) => entry.target === SIMULATORS)) {
    forbidden.push({ target: SIMULATORS, layer: 'simulators', above: false });
  }
  for (const target of OUTSIDE_PRODUCT) forbidden.push({ target, layer: 'outside the product', above: false });
  // activities/stations needs no pattern of its own where activities is forbidden already.
  const covered = (entry) => forbidden.some((other) => other !== entry && other.target !== entry.target && within(entry.target, other.target));
  return { layer: LAYERS[own.index].name, forbidden: forbidden.filter((entry) => !covered(entry)) };
}

function message(member, layer, entry) {
  if (entry.target === SIMULATORS) return `Product code never imports the simulators (${SIMULATORS}); only ${SIMULATOR_USERS.join(', ')} may.`;
  if (entry.layer === 'outside the product') return `Product code never imports ${entry.target}/.`;
  if (!entry.above) return `${member} and ${entry.target} are programs of their own (layer "${layer}"); share code through a lower layer.`;
  return `${member} (layer "${layer}") must not import ${entry.target} (layer "${entry.layer}", above it): move the shared code down (LAYERS in eslint.config.mjs).`;
}

/**
 * no-restricted-imports matches the import specifier as written, so the patterns are the relative paths from each
 * folder depth of a member to each forbidden target: exact, with no guessing from folder names that repeat
 * (src/definition-rules and workflows/built-in-definitions).
 */
const MAX_DEPTH = 6; // deeper folders get no entry, which test/unit/lint/layers.test.ts reports

function relativePattern(fromDir, target) {
  const relative = path.posix.relative(fromDir, withoutTs(target));
  return relative.startsWith('..') ? relative : `./${relative}`;
}

function patternsFrom(member, fromDir, layer, forbidden, allowTypeImports) {
  return forbidden.map((entry) => {
    const relative = relativePattern(fromDir, entry.target);
    const group = isFile(entry.target) ? [relative] : [relative, `${relative}/**`];
    const typesAllowed = allowTypeImports && entry.target !== SIMULATORS && entry.layer !== 'outside the product';
    return { group, message: message(member, layer, entry), ...(typesAllowed ? { allowTypeImports: true } : {}) };
  });
}

/**
 * One flat-config entry per member and folder depth, the more specific members last (ESLint keeps the last entry's
 * options for a rule). `extra(member)` adds the options of other no-restricted-imports uses (the workflow rule), since
 * a later entry replaces, not merges, an earlier one's options; `typeImportsUpward(member)` lets a member import types
 * from above (workflow code needs the activities' signatures).
 */
function layerConfigs({ extra = () => ({ paths: [], patterns: [] }), typeImportsUpward = () => false } = {}) {
  const members = [...LAYERS.flatMap((layer) => layer.members), ...SIMULATOR_USERS.filter((user) => !LAYERS.some((layer) => layer.members.includes(user)))];
  members.sort((a, b) => a.split('/').length - b.split('/').length);
  const configs = [];
  for (const member of members) {
    const { layer, forbidden } = forbiddenFor(member);
    const depths = isFile(member) ? [-1] : [...Array(MAX_DEPTH).keys()];
    for (const depth of depths) {
      const fromDir = depth < 0 ? path.posix.dirname(member) : [member, ...Array(depth).fill('d')].join('/');
      const files = depth < 0 ? [member] : [`${[member, ...Array(depth).fill('*')].join('/')}/*.ts`];
      const { paths, patterns } = extra(member);
      configs.push({
        files,
        rules: {
          'no-restricted-imports': ['error', {
            paths,
            patterns: [...patterns, ...patternsFrom(member, fromDir, layer, forbidden, typeImportsUpward(member))],
          }],
        },
      });
    }
  }
  return configs;
}

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
  {
    // Issue 44: a function a reader can hold in mind at once. The simulators of the outside world (src/sandbox/) are
    // one vendor each, described route by route, and are exempt.
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/sandbox/**'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  // Layers: every folder of src/, activities/ and workflows/ imports only its own layer and the layers below it (LAYERS).
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
