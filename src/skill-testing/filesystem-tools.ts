import { mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { workspacePath } from '../agent/agent-tools';
import { redactSecrets } from '../redaction/redact-secrets';
import type { RepositoryFolder } from './repository-folders';

const MAX_OUTPUT = 20_000;
const MAX_LISTED = 1000;
const MAX_SEARCH_FILE_BYTES = 1_000_000;
const SKIPPED = new Set(['.git', 'node_modules']);
/** Files the runner writes itself; the skill cannot overwrite them. */
export const RESERVED_OUTPUTS = new Set(['response.json', 'trace.json']);

function clip(text: string, limit = MAX_OUTPUT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n[... ${text.length - limit} more characters ...]`;
}

export interface FilesystemToolsOptions {
  repositories: readonly RepositoryFolder[];
  /** Where `write_file` puts the skill's generated files. */
  outputDir: string;
  /** Relative paths written so far, in order (the runner lists them in response.json). */
  written: string[];
}

/**
 * The filesystem backend of `test-skill run`: read-only `list_files`, `read_file` and `search_files` over the local
 * folders standing in for the ticket's repositories, and `write_file` into the output folder for the skill's
 * generated files. No shell and no network: nothing here runs a process. A path that leaves its folder (also
 * through a symbolic link) is refused; errors go back to the model as text so it can carry on.
 */
export function filesystemTools(options: FilesystemToolsOptions): ToolSet {
  const readable = options.repositories.filter((r): r is RepositoryFolder & { folder: string } => r.folder !== null);
  const guarded = <T>(run: (input: T) => Promise<string>) => async (input: T) => {
    try {
      return await run(input);
    } catch (error) {
      return `error: ${redactSecrets((error as Error).message)}`;
    }
  };
  const folderOf = (name: string): string => {
    const found = readable.find((r) => r.name === name);
    if (!found) throw new Error(`no repository "${name}" (available: ${readable.map((r) => r.name).join(', ') || 'none'})`);
    return found.folder;
  };
  const inside = async (root: string, path: string): Promise<string> => {
    const full = workspacePath(root, path);
    const real = await realpath(full);
    const realRoot = await realpath(root);
    if (real !== realRoot && !real.startsWith(`${realRoot}/`)) throw new Error(`${path} leads outside the repository`);
    return real;
  };

  const tools: ToolSet = {
    write_file: tool({
      description: 'Write one generated output file (created or overwritten) into the output folder. Paths are relative to the output folder.',
      inputSchema: z.object({ path: z.string().min(1), content: z.string() }),
      execute: guarded(async ({ path, content }) => {
        const full = workspacePath(options.outputDir, path);
        const rel = relative(options.outputDir, full).split('\\').join('/');
        if (RESERVED_OUTPUTS.has(rel)) return `error: ${rel} is written by the test runner; choose another name`;
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, content);
        if (!options.written.includes(rel)) options.written.push(rel);
        return `wrote ${content.length} characters to ${rel}`;
      }),
    }),
  };
  if (readable.length === 0) return tools;

  const repository = z.enum(readable.map((r) => r.name) as [string, ...string[]]).describe('the repository to look at');
  tools.list_files = tool({
    description: 'List files and folders of a repository (read only), under a folder (default its root), depth 1-6 (default 3).',
    inputSchema: z.object({ repository, path: z.string().optional(), depth: z.number().int().min(1).max(6).optional() }),
    execute: guarded(async ({ repository: name, path, depth }) => {
      const root = folderOf(name);
      const start = await inside(root, path ?? '.');
      if (!(await stat(start)).isDirectory()) return `error: ${path} is not a folder`;
      const out: string[] = [];
      await walk(start, depth ?? 3, (full, isDir) => {
        out.push(`${relative(root, full)}${isDir ? '/' : ''}`);
        return out.length < MAX_LISTED;
      }, true);
      return clip(out.join('\n') || '(empty)') + (out.length >= MAX_LISTED ? `\n(listing stopped at ${MAX_LISTED} entries; list a subfolder)` : '');
    }),
  });
  tools.read_file = tool({
    description: 'Read a text file of a repository (read only). Optional 1-based start_line/end_line.',
    inputSchema: z.object({ repository, path: z.string().min(1), start_line: z.number().int().min(1).optional(), end_line: z.number().int().min(1).optional() }),
    execute: guarded(async ({ repository: name, path, start_line, end_line }) => {
      const text = redactSecrets(await readFile(await inside(folderOf(name), path), 'utf8'));
      if (!start_line && !end_line) return clip(text);
      return clip(text.split('\n').slice((start_line ?? 1) - 1, end_line).join('\n'));
    }),
  });
  tools.search_files = tool({
    description: 'Search the text files of one or all repositories for a regular expression (JavaScript syntax); returns repository:path:line: text.',
    inputSchema: z.object({ pattern: z.string().min(1), repository: repository.optional(), path: z.string().optional(), max_results: z.number().int().min(1).max(200).optional() }),
    execute: guarded(async ({ pattern, repository: name, path, max_results }) => {
      let regex: RegExp;
      try {
        regex = new RegExp(pattern);
      } catch (error) {
        return `error: not a valid regular expression: ${(error as Error).message}`;
      }
      const limit = max_results ?? 50;
      const hits: string[] = [];
      for (const repo of name ? readable.filter((r) => r.name === name) : readable) {
        const start = await inside(repo.folder, path ?? '.');
        await walk(start, 64, async (full, isDir) => {
          if (isDir) return hits.length < limit;
          const info = await stat(full);
          if (info.size > MAX_SEARCH_FILE_BYTES) return true;
          const buffer = await readFile(full);
          if (buffer.includes(0)) return true;
          const lines = buffer.toString('utf8').split('\n');
          for (let i = 0; i < lines.length && hits.length < limit; i += 1) {
            if (regex.test(lines[i]!)) hits.push(`${repo.name}:${relative(repo.folder, full)}:${i + 1}: ${redactSecrets(lines[i]!.slice(0, 300))}`);
          }
          return hits.length < limit;
        }, false);
      }
      return hits.length ? clip(hits.join('\n')) + (hits.length >= limit ? `\n(stopped at ${limit} matches)` : '') : 'no matches';
    }),
  });
  return tools;
}

/** Depth-first, sorted, skipping .git and node_modules; `visit` returns false to stop. */
async function walk(dir: string, depth: number, visit: (full: string, isDir: boolean) => boolean | Promise<boolean>, listDirs: boolean): Promise<boolean> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (SKIPPED.has(entry.name) || entry.isSymbolicLink()) continue;
    const full = join(dir, entry.name);
    const isDir = entry.isDirectory();
    if ((listDirs || !isDir) && !(await visit(full, isDir))) return false;
    if (isDir && depth > 1 && !(await walk(full, depth - 1, visit, listDirs))) return false;
  }
  return true;
}
