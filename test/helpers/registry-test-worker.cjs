// A real worker process (the compiled service's startWorker) whose planning stations are stand-ins that only post a
// comment naming the worker's build, so the registry and versioning tests can walk published definitions made of
// catalogue stations and see which build ran each station.
const { createHash } = require('node:crypto');
const { startupConfig } = require('../../dist/src/config/startup-config');
const { startWorker } = require('../../dist/src/worker');
const { runUntilSignal } = require('../../dist/src/process/run-until-signal');

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const writes = (name, artifact) => async (input) => {
  const text = `${name} of ${input.ticket_key} (${input.node}, visit ${input.visit}, build ${process.env.SERVICE_BUILD_ID || 'unversioned'})`;
  return {
    outcome: 'generated',
    artifacts: { [artifact]: { text, digest: sha256(text) } },
    effects: [{ name: `post_${artifact}`, operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: text } }],
    summary: `wrote the ${artifact}`,
  };
};

(async () => {
  const { config, logger } = startupConfig();
  const stations = { generate_prd: writes('PRD', 'prd'), generate_spec: writes('Spec', 'spec') };
  const worker = await startWorker(config, logger, { stations });
  console.log(`worker polling task queue ${config.temporal.taskQueue} (test stations: ${Object.keys(stations).join(', ')})`);
  await Promise.race([runUntilSignal(() => worker.stop(), (line) => console.log(line)), worker.done]);
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
