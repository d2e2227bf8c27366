import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { tool, type ToolSet } from 'ai';
import { z } from 'zod';

const MAX_TOOL_OUTPUT = 16_000;

export class ToolInputError extends Error {}

function truncate(text: string, limit = MAX_TOOL_OUTPUT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n... [${text.length - limit} more characters cut]`;
}

/** A path inside the workspace; anything that escapes it (`..`, absolute paths elsewhere) is refused. */
export function workspacePath(workspace: string, path: string): string {
  const full = resolve(workspace, path);
  const rel = relative(workspace, full);
  if (rel.startsWith('..') || resolve(workspace, rel) !== full) throw new ToolInputError(`${path} is outside the workspace`);
  return full;
}

interface CommandResult { code: number | null; output: string; timedOut: boolean }

function runProcess(command: string, args: string[], cwd: string, timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let timedOut = false;
    const append = (chunk: Buffer) => {
      if (output.length < MAX_TOOL_OUTPUT * 2) output += chunk.toString('utf8');
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole process group: a test runner's children must not outlive the time limit.
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, timeoutMs);
    child.on('error', (error) => { output += String(error); });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output: truncate(output), timedOut });
    });
  });
}

const git = (workspace: string, args: string[]) => runProcess('git', ['-c', 'safe.directory=*', ...args], workspace, 30_000);

async function listTree(root: string, dir: string, depth: number, out: string[]): Promise<void> {
  if (out.length > 2000) return;
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    out.push(`${relative(root, full)}${entry.isDirectory() ? '/' : ''}`);
    if (entry.isDirectory() && depth > 1) await listTree(root, full, depth - 1, out);
  }
}

/**
 * The agent's tools: files, search, a command with a time limit, and git status and diff, all confined to the
 * workspace. Errors are returned to the model as text (it can correct itself) rather than thrown.
 */
export function createAgentTools(workspace: string, commandTimeoutSeconds: number): ToolSet {
  const guarded = <T>(run: (input: T) => Promise<string>) => async (input: T) => {
    try {
      return await run(input);
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  };
  return {
    read_file: tool({
      description: 'Read a text file of the workspace. Optional 1-based start_line/end_line.',
      inputSchema: z.object({ path: z.string(), start_line: z.number().int().min(1).optional(), end_line: z.number().int().min(1).optional() }),
      execute: guarded(async ({ path, start_line, end_line }) => {
        const text = await readFile(workspacePath(workspace, path), 'utf8');
        if (!start_line && !end_line) return truncate(text);
        return truncate(text.split('\n').slice((start_line ?? 1) - 1, end_line).join('\n'));
      }),
    }),
    write_file: tool({
      description: 'Create or overwrite a file of the workspace (parent folders are created).',
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: guarded(async ({ path, content }) => {
        const full = workspacePath(workspace, path);
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, content);
        return `wrote ${content.length} characters to ${path}`;
      }),
    }),
    edit_file: tool({
      description: 'Replace one exact, unique occurrence of old_text with new_text in a workspace file.',
      inputSchema: z.object({ path: z.string(), old_text: z.string().min(1), new_text: z.string() }),
      execute: guarded(async ({ path, old_text, new_text }) => {
        const full = workspacePath(workspace, path);
        const text = await readFile(full, 'utf8');
        const count = text.split(old_text).length - 1;
        if (count !== 1) return `error: old_text occurs ${count} times in ${path}; it must occur exactly once`;
        await writeFile(full, text.replace(old_text, () => new_text));
        return `edited ${path}`;
      }),
    }),
    list_files: tool({
      description: 'List files and folders under a workspace folder (default the root), depth 1-5 (default 2).',
      inputSchema: z.object({ path: z.string().optional(), depth: z.number().int().min(1).max(5).optional() }),
      execute: guarded(async ({ path, depth }) => {
        const dir = workspacePath(workspace, path ?? '.');
        if (!(await stat(dir)).isDirectory()) return `error: ${path} is not a folder`;
        const out: string[] = [];
        await listTree(workspace, dir, depth ?? 2, out);
        return truncate(out.join('\n') || '(empty)');
      }),
    }),
    search: tool({
      description: 'Search the workspace for a regular expression (ripgrep syntax); returns file:line:text.',
      inputSchema: z.object({ pattern: z.string().min(1), path: z.string().optional() }),
      execute: guarded(async ({ pattern, path }) => {
        const where = workspacePath(workspace, path ?? '.');
        const rg = await runProcess('rg', ['-n', '--no-heading', '--max-count', '50', '-e', pattern, where], workspace, 30_000);
        const result = rg.code === null || rg.output.includes('ENOENT')
          ? await runProcess('grep', ['-rnE', '--exclude-dir=.git', pattern, where], workspace, 30_000)
          : rg;
        return result.output.trim() ? result.output.split(`${workspace}/`).join('') : 'no matches';
      }),
    }),
    run_command: tool({
      description: `Run a shell command in the workspace (bash). Killed after ${commandTimeoutSeconds} s. Returns exit code and output.`,
      inputSchema: z.object({ command: z.string().min(1) }),
      execute: guarded(async ({ command }) => {
        const result = await runProcess('bash', ['-c', command], workspace, commandTimeoutSeconds * 1000);
        if (result.timedOut) return `timed out after ${commandTimeoutSeconds} s\n${result.output}`;
        return `exit code ${result.code}\n${result.output}`;
      }),
    }),
    git_status: tool({
      description: 'git status of the workspace (short format).',
      inputSchema: z.object({}),
      execute: guarded(async () => (await git(workspace, ['status', '--short'])).output || 'clean'),
    }),
    git_diff: tool({
      description: 'git diff of the workspace against HEAD (including new files).',
      inputSchema: z.object({ path: z.string().optional() }),
      execute: guarded(async ({ path }) => {
        await git(workspace, ['add', '--intent-to-add', '--all']);
        return (await git(workspace, ['diff', 'HEAD', '--', ...(path ? [path] : [])])).output || 'no changes';
      }),
    }),
  };
}
