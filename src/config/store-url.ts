/**
 * STORE_URL names the state store. In this service the state store is Temporal (workflow state is the checkpoint,
 * ledger, effect journal and timeline), so the accepted forms are:
 *   temporal://host:port            namespace "default"
 *   temporal://host:port/namespace
 *   host:port                        the bare frontend address, as TEMPORAL_ADDRESS takes it
 * TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, when set, win over the matching part of STORE_URL.
 */
export const DEFAULT_STORE_URL = 'temporal://127.0.0.1:7233/default';

export interface TemporalStore {
  address: string;
  namespace: string;
}

export type StoreUrlResult = { ok: true; store: TemporalStore } | { ok: false; problem: string };

const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

function checkAddress(address: string): string | undefined {
  const match = HOST_PORT.exec(address);
  if (!match) return `expected host:port, got "${address}"`;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return `port ${port} is out of range 1-65535`;
  return undefined;
}

export function parseStoreUrl(value: string): StoreUrlResult {
  const text = value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    const problem = checkAddress(text);
    return problem ? { ok: false, problem } : { ok: true, store: { address: text, namespace: 'default' } };
  }
  if (scheme !== 'temporal') {
    return {
      ok: false,
      problem: `the state store is the Temporal frontend; use temporal://host:port/namespace or host:port (got a ${scheme}:// URL)`,
    };
  }
  const rest = text.slice('temporal://'.length);
  const slash = rest.indexOf('/');
  const address = slash === -1 ? rest : rest.slice(0, slash);
  const namespace = slash === -1 ? '' : decodeURIComponent(rest.slice(slash + 1).replace(/\/+$/, ''));
  const problem = checkAddress(address);
  if (problem) return { ok: false, problem };
  if (namespace.includes('/')) return { ok: false, problem: `namespace "${namespace}" must be a single path segment` };
  return { ok: true, store: { address, namespace: namespace || 'default' } };
}

export function checkTemporalAddress(address: string): string | undefined {
  return checkAddress(address.trim());
}
