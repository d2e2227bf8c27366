import { readFileSync } from 'node:fs';
import type { ConnectionOptions, TLSConfig } from '@temporalio/client';
import type { ServiceConfig } from '../config/service-config';

/** A TLS file named in the configuration could not be read: nothing connects until it can. */
export class TemporalTlsFileError extends Error {
  override readonly name = 'TemporalTlsFileError';
}

export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

function read(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new TemporalTlsFileError(`${variable}: cannot read ${path}: ${(error as Error).message}`);
  }
}

/**
 * What every connection to Temporal is made with (the gateway's, the worker's client and native connection, the
 * operator commands'): the address and, when configured, TLS with its files read now, and the API key.
 */
export function temporalConnectionOptions(temporal: ServiceConfig['temporal']): TemporalConnectionOptions {
  const options: TemporalConnectionOptions = { address: temporal.address };
  if (temporal.apiKey) options.apiKey = temporal.apiKey;
  if (temporal.tls) {
    const { clientCertPath, clientKeyPath, serverCaCertPath, serverName } = temporal.tls;
    const tls: TLSConfig = {};
    if (clientCertPath && clientKeyPath) {
      tls.clientCertPair = { crt: read('TEMPORAL_TLS_CLIENT_CERT_PATH', clientCertPath), key: read('TEMPORAL_TLS_CLIENT_KEY_PATH', clientKeyPath) };
    }
    if (serverCaCertPath) tls.serverRootCACertificate = read('TEMPORAL_TLS_SERVER_CA_CERT_PATH', serverCaCertPath);
    if (serverName) tls.serverNameOverride = serverName;
    options.tls = tls;
  } else if (temporal.apiKey) {
    // Configured with TEMPORAL_TLS=false: the SDK would otherwise turn TLS on for an API key.
    options.tls = false;
  }
  return options;
}

/**
 * gRPC channel options of a client connection (@temporalio/client `Connection`). The SDK (1.24.0) means to raise
 * grpc-js's 4 MiB receive limit to 128 MiB, but passes it as `max_receive_message_length`, a name grpc-js does not
 * read (it reads `grpc.max_receive_message_length`), so the limit stays 4 MiB. A page of ListWorkflowExecutions
 * carries each run's memo, and the read model in a parked ticket's memo is about 5 KB: 1,000 of them are more than
 * 4 MiB, and the call fails with RESOURCE_EXHAUSTED. The gateway lists workflows (the console's board, the ticket
 * census), so its connection takes the limit the SDK meant.
 */
export const CLIENT_CHANNEL_ARGS = { 'grpc.max_receive_message_length': 128 * 1024 * 1024 } as const;

/** The gateway's client connection: the options every connection takes, with the receive limit of CLIENT_CHANNEL_ARGS. */
export function gatewayConnectionOptions(temporal: ServiceConfig['temporal']): TemporalConnectionOptions & Pick<ConnectionOptions, 'channelArgs'> {
  return { ...temporalConnectionOptions(temporal), channelArgs: { ...CLIENT_CHANNEL_ARGS } };
}
