// Asks a gateway's /api/v1/health every `everyMs` for `seconds`, each time on a new connection (as a kubelet probe
// does), from a process of its own so that the gateway's process does no client work. Prints one JSON line: each
// probe's start (ms after the first) and how long it took, or its error.
const { get } = require('node:http');
const { performance } = require('node:perf_hooks');
const { setTimeout } = require('node:timers');

const { url, seconds, everyMs } = JSON.parse(process.argv[2]);
const probes = [];
const started = performance.now();

function probe() {
  const at = performance.now();
  return new Promise((resolve) => {
    const req = get(`${url}/api/v1/health`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ at: Math.round(at - started), ms: performance.now() - at, status: res.statusCode }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', (error) => resolve({ at: Math.round(at - started), ms: performance.now() - at, error: error.message }));
  });
}

(async () => {
  while (performance.now() - started < seconds * 1000) {
    probes.push(await probe());
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  process.stdout.write(`${JSON.stringify(probes)}\n`);
})();
