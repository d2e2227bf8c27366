import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttp2Server, type Http2Server, type Http2Session } from 'node:http2';
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadServiceConfig } from '../../src/config/service-config';
import { TemporalTlsFileError, temporalConnectionOptions } from '../../src/temporal/connection-options';

const optionsFrom = (env: NodeJS.ProcessEnv) => {
  const loaded = loadServiceConfig(env);
  if (!loaded.config) throw new Error(loaded.problems.join('\n'));
  return temporalConnectionOptions(loaded.config.temporal);
};

/**
 * A cluster past one machine wants TLS or an API key. The real dev server speaks plaintext, so a TLS terminator (a
 * self-signed certificate for `temporal.test`, HTTP/2 by ALPN) stands in front of it, and a plain HTTP/2 endpoint
 * records what a connection with an API key sends.
 */
describe('connections to Temporal over TLS and with an API key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
  let terminator: TlsServer;
  let recorder: Http2Server;
  let tlsAddress = '';
  let recorderAddress = '';
  const authorizations: Array<string | undefined> = [];
  // Connections the SDKs leave open would hold the servers' close() forever.
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();

  beforeAll(async () => {
    // A CA and a server certificate it signed (rustls, under the worker's native connection, refuses a self-signed
    // certificate used as both).
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=Test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'server.csr', '-subj', '/CN=temporal.test');
    writeFileSync(join(dir, 'server.ext'), 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:temporal.test\nextendedKeyUsage=serverAuth\n');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'cert.pem', '-days', '1', '-extfile', 'server.ext');
    const [host, port] = inject('temporalAddress').split(':') as [string, string];
    terminator = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), ALPNProtocols: ['h2'] }, (socket) => {
      const upstream = connectTcp(Number(port), host);
      sockets.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => terminator.listen(0, '127.0.0.1', resolve));
    tlsAddress = `127.0.0.1:${(terminator.address() as AddressInfo).port}`;
    recorder = createHttp2Server();
    recorder.on('session', (session) => sessions.add(session));
    recorder.on('stream', (stream, headers) => {
      authorizations.push(headers.authorization as string | undefined);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '16', 'grpc-message': 'recorded' }));
      stream.end();
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    recorderAddress = `127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const session of sessions) session.destroy();
    await new Promise((resolve) => terminator?.close(resolve));
    await new Promise((resolve) => recorder?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches the server through TLS with the configured CA and server name: the client and the worker\'s native connection', async () => {
    const options = optionsFrom({ TEMPORAL_ADDRESS: tlsAddress, TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'ca.pem'), TEMPORAL_TLS_SERVER_NAME: 'temporal.test' });
    const connection = await Connection.connect({ ...options, connectTimeout: 5_000 });
    try {
      expect((await connection.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
    const native = await NativeConnection.connect(options);
    await native.close();
  });

  it('refuses a server whose certificate it cannot verify', async () => {
    const options = optionsFrom({ TEMPORAL_ADDRESS: tlsAddress, TEMPORAL_TLS: 'true', TEMPORAL_TLS_SERVER_NAME: 'temporal.test' });
    await expect(Connection.connect({ ...options, connectTimeout: 3_000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
  });

  it('sends the API key as a bearer token', async () => {
    const options = optionsFrom({ TEMPORAL_ADDRESS: recorderAddress, TEMPORAL_API_KEY: 'tmprl-key-for-the-test', TEMPORAL_TLS: 'false' });
    await Connection.connect({ ...options, connectTimeout: 3_000 }).then((c) => c.workflowService.getSystemInfo({})).catch(() => undefined);
    expect(authorizations).toContain('Bearer tmprl-key-for-the-test');
  });

  it('names the variable and the file it could not read', () => {
    expect(() => optionsFrom({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'missing.pem') }))
      .toThrow(new TemporalTlsFileError(`TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read ${join(dir, 'missing.pem')}: ENOENT: no such file or directory, open '${join(dir, 'missing.pem')}'`));
  });
});
