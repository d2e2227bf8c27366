import { basename, resolve } from 'node:path';

/** A repository the skill may read, and the local folder that stands in for it (null: named but not given). */
export interface RepositoryFolder {
  name: string;
  folder: string | null;
}

/**
 * Pairs the input's `available_repos` with the `--repos` folders: a folder stands for the repository whose full
 * name or last segment equals the folder's name (`acme/api` ↔ `.../api`); one repository and one folder always pair.
 * Folders no repository names are offered under their folder name, so a dataset without `available_repos` still
 * reads the code it was given.
 */
export function mapRepositoryFolders(available: readonly string[], folders: readonly string[]): RepositoryFolder[] {
  const remaining = folders.map((folder) => resolve(folder));
  const take = (predicate: (folder: string) => boolean): string | null => {
    const index = remaining.findIndex(predicate);
    return index < 0 ? null : remaining.splice(index, 1)[0]!;
  };
  const mapped = available.map((name) => {
    const last = name.split('/').pop() ?? name;
    return { name, folder: take((folder) => basename(folder) === last || basename(folder) === name.replace(/\//g, '_')) };
  });
  if (mapped.length === 1 && mapped[0]!.folder === null && remaining.length === 1) mapped[0]!.folder = remaining.splice(0, 1)[0]!;
  const taken = new Set(mapped.map((entry) => entry.name));
  for (const folder of remaining) {
    let name = basename(folder);
    for (let n = 2; taken.has(name); n += 1) name = `${basename(folder)}-${n}`;
    taken.add(name);
    mapped.push({ name, folder });
  }
  return mapped;
}
