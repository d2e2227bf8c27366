import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
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
