// An attacker of the gateway's webhook routes, run as a child process so that its own work does not slow the test's
// health probes or count in the gateway's memory (test/process/gateway/webhook-flood.test.ts, bench/webhook-flood.ts).
// Every request carries a well-formed forged signature (or token), so only the body could give it away.
//
// argv: JSON { url, seconds, perRoute, fastMiBPerSecond, pauseMs }. For each route, `perRoute` connections at once for
// `seconds`: half send a chunked body of 9 MiB, past every limit, at `fastMiBPerSecond` each (0: as fast as the
// gateway reads); half declare a 4 MiB body and trickle 16 KiB every 200 ms. A connection that is answered or cut is
// replaced after `pauseMs` (0: at once). Prints one JSON line: answers by route and status,
// with the error codes and whether each 503 had Retry-After.
const { Buffer } = require('node:buffer');
const { request } = require('node:http');
const { clearInterval, setInterval, setTimeout } = require('node:timers');

const { url, seconds, perRoute, fastMiBPerSecond = 0, pauseMs = 0 } = JSON.parse(process.argv[2]);
const forged = `sha256=${'0'.repeat(64)}`;
const ROUTES = [
  { name: 'tracker', path: '/api/v1/webhooks/tracker', headers: { 'x-hub-signature': forged } },
  { name: 'scmhost', path: '/api/v1/webhooks/scmhost', headers: { 'x-hub-signature-256': forged, 'x-github-event': 'issue_comment' } },
  { name: 'gitlab', path: '/api/v1/webhooks/gitlab', headers: { 'x-gitlab-token': 'a-guess', 'x-gitlab-event': 'Note Hook' } },
];
const CHUNK = Buffer.alloc(64 * 1024, 0x20);
const TRICKLE = Buffer.alloc(16 * 1024, 0x20);
const FAST_BYTES = 9 * 1024 * 1024;
const SLOW_DECLARED = 4 * 1024 * 1024;

const stopAt = Date.now() + seconds * 1000;
const tally = {};
const open = new Set();
const count = (route, key) => {
  tally[route] ??= {};
  tally[route][key] = (tally[route][key] ?? 0) + 1;
};

function attack(route, slow) {
  if (Date.now() >= stopAt) return Promise.resolve();
  return new Promise((resolve) => {
    const req = request(`${url}${route.path}`, {
      method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', ...route.headers, ...(slow ? { 'content-length': String(SLOW_DECLARED) } : { 'transfer-encoding': 'chunked' }) },
    });
    open.add(req);
    let timer;
    let sent = 0;
    const done = () => {
      clearInterval(timer);
      open.delete(req);
      req.destroy();
      resolve();
    };
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => {
        let code = '';
        try { code = JSON.parse(text).error.code; } catch { code = 'not-json'; }
        count(route.name, `${res.statusCode} ${code}${res.statusCode === 503 ? (res.headers['retry-after'] ? ' retry-after' : ' no-retry-after') : ''}`);
        done();
      });
    });
    req.on('error', () => { count(route.name, 'cut'); done(); });
    req.on('close', done);
    if (slow) {
      req.flushHeaders();
      timer = setInterval(() => { if (sent + TRICKLE.length <= SLOW_DECLARED) { sent += TRICKLE.length; req.write(TRICKLE); } }, 200);
    } else if (fastMiBPerSecond > 0) {
      timer = setInterval(() => {
        if (req.destroyed || sent >= FAST_BYTES || req.writableNeedDrain) return;
        sent += CHUNK.length;
        req.write(CHUNK);
        if (sent >= FAST_BYTES) req.end();
      }, Math.max(1, Math.round((CHUNK.length / (fastMiBPerSecond * 1024 * 1024)) * 1000)));
    } else {
      const pump = () => {
        while (sent < FAST_BYTES && !req.destroyed) {
          sent += CHUNK.length;
          if (!req.write(CHUNK)) return void req.once('drain', pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    }
  }).then(() => new Promise((resolve) => setTimeout(resolve, pauseMs))).then(() => attack(route, slow));
}

(async () => {
  const slots = ROUTES.flatMap((route) => Array.from({ length: perRoute }, (_, i) => attack(route, i % 2 === 1)));
  // The slow senders would trickle for minutes: at the end, whatever is still open is cut.
  setTimeout(() => { for (const req of open) req.destroy(); }, seconds * 1000);
  await Promise.all(slots);
  process.stdout.write(`${JSON.stringify(tally)}\n`);
})();
