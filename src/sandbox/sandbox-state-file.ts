import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A state file that cannot be read back: the operator decides whether to delete the data directory. */
export class SandboxStateError extends Error {
  override readonly name = 'SandboxStateError';
}

/** Reads a JSON state file; undefined when there is none yet. */
export function readStateFile<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new SandboxStateError(`${file} is not readable JSON (${(error as Error).message}): delete the data directory to start the sandbox from nothing`);
  }
}

/** Writes through a temporary file and a rename, so a crash mid-write leaves the previous state, never half of one. */
export function writeStateFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}

export interface PersistedState<T> {
  snapshot(): T;
  /** Fires after a change that handed out an id (an issue, a comment, a pull request...). */
  onEvent(listener: () => void): void;
}

export interface StatePersistence {
  /** Writes the state now when it changed since the last write. */
  save(): void;
  /** Stops the periodic check and writes a last time. */
  close(): void;
}

/**
 * Keeps a simulator's state in its file: written synchronously on every event (before the webhook that reports the
 * change leaves, so the service never sees an id the file does not hold), and checked every `intervalMs` for
 * changes that fire no event (properties, branches, links).
 */
export function persistState<T>(file: string, state: PersistedState<T>, options: { intervalMs?: number } = {}): StatePersistence {
  let written = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const save = () => {
    const text = `${JSON.stringify(state.snapshot())}\n`;
    if (text === written) return;
    writeStateFile(file, text);
    written = text;
  };
  state.onEvent(save);
  const timer = setInterval(save, options.intervalMs ?? 1_000);
  timer.unref();
  return {
    save,
    close() {
      clearInterval(timer);
      save();
    },
  };
}
