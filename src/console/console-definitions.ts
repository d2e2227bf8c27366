import { BUILT_IN_DEFINITIONS } from '../../workflows/built-in-definitions';
import type { PinnedDefinition } from '../../workflows/built-in-definitions/definition-types';
import type { DefinitionSummary } from '../../workflows/registry/definition-registry-state';
import { pinDefinition } from '../definition-rules/definition-digest';

/** What the console reads of the definition registry (src/temporal/definition-registry.ts answers both). */
export interface ConsoleDefinitionsPort {
  list(): Promise<DefinitionSummary[]>;
  get(name: string, revision: number): Promise<PinnedDefinition | undefined>;
}

/** The built-in definitions only: a gateway without the registry still draws the tickets that run them. */
export function builtInDefinitions(): ConsoleDefinitionsPort {
  const pins = Object.values(BUILT_IN_DEFINITIONS).map(pinDefinition);
  return {
    list: async () => pins.map((d) => ({ name: d.name, revision: d.revision, digest: d.digest, source: 'built_in', published_at: null, published_by: null, latest: true, description: d.body.description ?? null })),
    get: async (name, revision) => pins.find((d) => d.name === name && d.revision === revision),
  };
}

/**
 * Revisions are immutable once published (the registry refuses a second body for a revision), so a body read once
 * is kept; a revision not found is asked again next time (it may be published meanwhile).
 */
export function rememberingDefinitions(port: ConsoleDefinitionsPort): ConsoleDefinitionsPort {
  const known = new Map<string, Promise<PinnedDefinition | undefined>>();
  return {
    list: () => port.list(),
    get: (name, revision) => {
      const key = `${name}@${revision}`;
      let found = known.get(key);
      if (!found) {
        found = port.get(name, revision);
        known.set(key, found);
        found.then((d) => { if (!d) known.delete(key); }, () => known.delete(key));
      }
      return found;
    },
  };
}
