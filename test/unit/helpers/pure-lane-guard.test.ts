import { execFile, spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { describe, expect, it } from 'vitest';

/** The pure lane's rule (vitest.config.mts, test/helpers/pure-lane-guard.ts) holds for the ways tests here import. */
describe('the pure lane refuses processes and sockets', () => {
  const rule = /in the pure lane \(test\/unit\/\): a test that starts a process or uses the network belongs in test\/process\//;

  it('refuses to start a process, through the ES module bindings too', () => {
    expect(() => spawn('git', ['--version'])).toThrow(rule);
    expect(() => execFile('true')).toThrow(rule);
  });

  it('refuses to listen or connect on any socket', () => {
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(rule);
    expect(() => connect(9, '127.0.0.1')).toThrow(rule);
  });

  it('refuses fetch', () => {
    expect(() => fetch('http://127.0.0.1:9/')).toThrow(rule);
  });
});
