// A real worker process (the compiled service's startWorker) with test stations whose behaviour the integration
// test controls through files in STATION_CONTROL_DIR. Plain CommonJS so it runs without a TypeScript loader.
const { appendFileSync, existsSync, mkdirSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { join } = require('node:path');
const { startupConfig } = require('../../dist/src/config/startup-config');
const { startWorker } = require('../../dist/src/worker');
const { runUntilSignal } = require('../../dist/src/process/run-until-signal');

const dir = process.env.STATION_CONTROL_DIR;
mkdirSync(dir, { recursive: true });
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const called = (station, input) => appendFileSync(join(dir, 'calls.log'), `${station} ${input.ticket_key} ${input.node} ${input.visit}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stations = {
  // Writes a note; a `slow-<ticket>` file makes it wait for `release-<ticket>` (to kill the worker mid-station).
  draft_note: async (input) => {
    called('draft_note', input);
    appendFileSync(join(dir, 'triggers.log'), `${JSON.stringify({ ticket_key: input.ticket_key, visit: input.visit, trigger: input.trigger ?? null, retry_count: input.retry_count })}\n`);
    if (existsSync(join(dir, `slow-${input.ticket_key}`))) {
      appendFileSync(join(dir, `started-${input.ticket_key}`), `${process.pid}\n`);
      while (!existsSync(join(dir, `release-${input.ticket_key}`))) await sleep(100);
    }
    const text = `Note v${input.visit}${input.request ? `: ${input.request.text}` : ''}`;
    return {
      outcome: 'drafted',
      artifacts: { note: { text, digest: sha256(text) } },
      data: { visit: input.visit },
      effects: [{ name: 'post_note', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: text } }],
      summary: `drafted note v${input.visit}`,
    };
  },
  publish_note: async (input) => {
    called('publish_note', input);
    const approved = input.artifacts.note && input.artifacts.note.approved ? 'approved' : 'unapproved';
    return {
      outcome: 'published',
      effects: [{ name: 'publish', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: `Published (${approved}): ${input.artifacts.note ? input.artifacts.note.text : ''}` } }],
    };
  },
  // Breaks the contract: the runtime must block with invalid_station_result, not run its writes.
  broken_note: async (input) => {
    called('broken_note', input);
    return { outcome: 'drafted', effects: [{ name: 'Not A Name', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: 'never' } }] };
  },
};

/**
 * With CONTAINER_TEST_WORK_DIR set: `container_edit`, the real container station family (rootless podman, the agent,
 * the model proxy to MODEL_SIM_URL, git over the source-host simulator), changing hello.txt in the ticket's repository.
 */
function containerStations(config, logger) {
  if (!process.env.CONTAINER_TEST_WORK_DIR) return {};
  const { createContainerStations } = require('../../dist/activities/stations/container-station');
  const { createGitRemotes } = require('../../dist/src/containers/git-remote');
  const { resolvePodmanAccount } = require('../../dist/src/containers/podman-account');
  const connection = { name: 'sim', backend: 'openai-compatible', base_url: process.env.MODEL_SIM_URL, allowed_models: ['agent-model'], capabilities: ['tools'], max_output_tokens: 4096 };
  const station = createContainerStations({
    config: { container: { ...config.container, workDir: process.env.CONTAINER_TEST_WORK_DIR, timeoutSeconds: 120 }, autoReview: config.autoReview },
    logger, account: () => resolvePodmanAccount(),
    remotes: createGitRemotes({ scmhostApiUrl: config.scmhost.apiUrl, scmhostToken: config.scmhost.token }),
    resolveModel: async () => ({ key: 'implement_work', target: { connection: 'sim', model: 'agent-model' }, connection, source: 'deployment_default' }),
  })({
    skill: 'workspace-task',
    task: () => 'Change the greeting in hello.txt to "hello, workflow" and write .service/notes.md describing the change.',
    outputs: () => ['.service/notes.md'],
    commitMessage: (input) => `[${input.ticket_key}] Change the greeting`,
  });
  return { container_edit: station };
}

(async () => {
  const { config, logger } = startupConfig();
  Object.assign(stations, containerStations(config, logger));
  const worker = await startWorker(config, logger, { stations });
  console.log(`worker polling task queue ${config.temporal.taskQueue} (test stations: ${Object.keys(stations).join(', ')})`);
  await Promise.race([runUntilSignal(() => worker.stop(), (line) => console.log(line)), worker.done]);
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
