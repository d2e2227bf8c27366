import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/**
 * The setup file of the pure lane (vitest project `pure`, test/unit/): a test there may start no process and open
 * no socket, so that the lane stays fast and its cost is known. Each way out throws an error that names the rule and
 * where such a test belongs, instead of the lane slowly filling with tests that start the CLI, git or a server again.
 * Files and the in-process Temporal replayer are allowed.
 */
class PureLaneViolation extends Error {
  constructor(what: string) {
    super(`${what} in the pure lane (test/unit/): a test that starts a process or uses the network belongs in test/process/ (see docs/testing.md)`);
    this.name = 'PureLaneViolation';
  }
}

function forbid<T extends object>(target: T, names: readonly (keyof T & string)[], what: (name: string) => string): void {
  for (const name of names) {
    Object.defineProperty(target, name, {
      configurable: true,
      writable: true,
      value: () => {
        throw new PureLaneViolation(what(name));
      },
    });
  }
}

forbid(childProcess, ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'], (name) => `child_process.${name}`);
forbid(net.Server.prototype, ['listen'], () => 'listening on a socket');
forbid(net.Socket.prototype, ['connect'], () => 'connecting a socket');
forbid(globalThis, ['fetch'], () => 'fetch');
// `import { spawn } from 'node:child_process'` in ES modules reads the exports as they were: make them see the guard.
syncBuiltinESMExports();
