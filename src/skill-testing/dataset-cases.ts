import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One case of a dataset: `<dataset>/<id>/input.yaml`, with the case's gold standard file beside it. */
export interface DatasetCase {
  id: string;
  folder: string;
  inputFile: string;
}

export const INPUT_FILE = 'input.yaml';

export class DatasetError extends Error {
  override readonly name = 'DatasetError';
}

/** The cases of a dataset folder, in name order; a folder without input.yaml is not a case. */
export function listDatasetCases(dataset: string): DatasetCase[] {
  if (!existsSync(dataset) || !statSync(dataset).isDirectory()) throw new DatasetError(`dataset ${dataset} is not a folder`);
  const cases = readdirSync(dataset, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dataset, entry.name, INPUT_FILE)))
    .map((entry) => ({ id: entry.name, folder: join(dataset, entry.name), inputFile: join(dataset, entry.name, INPUT_FILE) }))
    .sort((a, b) => a.id.localeCompare(b.id));
  if (cases.length === 0) throw new DatasetError(`dataset ${dataset} has no cases: expected folders holding ${INPUT_FILE} (e.g. ${join(dataset, 'case-1', INPUT_FILE)})`);
  return cases;
}
