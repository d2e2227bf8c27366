import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import type { ScmhostClient } from '../providers/scmhost/scmhost-client';
import { redactSecrets } from '../redaction/redact-secrets';

/** What the tools need from the source host: reads only. */
export type RepositoryReader = Pick<ScmhostClient, 'listFiles' | 'readFile'>;

export interface RepositoryToolOptions {
  reader: () => Promise<RepositoryReader>;
  /** The only repositories the model may look at: the ticket's assigned (or allowed) ones. */
  repositories: readonly string[];
  /** Paths listed per call; default 400. */
  maxPaths?: number;
  /** Characters of a file returned per call; default 20,000. */
  maxFileChars?: number;
}

function repoRef(repository: string): { owner: string; repo: string } {
  const [owner = '', repo = ''] = repository.split('/');
  return { owner, repo };
}

/**
 * Read-only tools a planning model may call to look at the ticket's repositories through the source-host API:
 * `list_files` (the file tree) and `read_file` (one file's text). Nothing is cloned and nothing can be written; a
 * repository outside the ticket's set is refused by the schema. Outputs are bounded so a large repository cannot
 * crowd the ticket out of the context; failures are returned as text so the model can carry on without them.
 */
export function repositoryTools(options: RepositoryToolOptions): ToolSet {
  if (options.repositories.length === 0) return {};
  const maxPaths = options.maxPaths ?? 400;
  const maxFileChars = options.maxFileChars ?? 20_000;
  const repository = z.enum(options.repositories as [string, ...string[]]).describe('owner/repo');
  const trees = new Map<string, Promise<{ paths: string[]; truncated: boolean }>>();
  const failed = (what: string, error: unknown) => `${what} failed: ${redactSecrets(error instanceof Error ? error.message : String(error)).slice(0, 300)}`;

  return {
    list_files: tool({
      description: 'Lists the file paths of one of the ticket\'s repositories (default branch), optionally under a directory.',
      inputSchema: z.object({ repository, path_prefix: z.string().optional().describe('e.g. "src/" to list only that directory') }),
      execute: async ({ repository: name, path_prefix }) => {
        try {
          let tree = trees.get(name);
          if (!tree) {
            tree = options.reader().then((reader) => reader.listFiles(repoRef(name)));
            trees.set(name, tree);
          }
          const { paths, truncated } = await tree;
          const prefix = (path_prefix ?? '').replace(/^\/+/, '');
          const matching = paths.filter((path) => path.startsWith(prefix));
          const shown = matching.slice(0, maxPaths);
          const notes = [
            ...(matching.length > shown.length ? [`(${matching.length - shown.length} more paths not shown; narrow path_prefix)`] : []),
            ...(truncated ? ['(the source host cut the tree short; some paths are missing)'] : []),
          ];
          return shown.length ? [...shown, ...notes].join('\n') : `no files${prefix ? ` under ${prefix}` : ''} in ${name}`;
        } catch (error) {
          trees.delete(name);
          return failed(`listing ${name}`, error);
        }
      },
    }),
    read_file: tool({
      description: 'Reads one file of one of the ticket\'s repositories (default branch).',
      inputSchema: z.object({ repository, path: z.string().min(1) }),
      execute: async ({ repository: name, path }) => {
        try {
          const file = await (await options.reader()).readFile(repoRef(name), path.replace(/^\/+/, ''));
          if (!file) return `${path} does not exist in ${name}`;
          // A credential committed by mistake must not travel on to the model provider.
          const text = redactSecrets(file.text);
          return text.length > maxFileChars ? `${text.slice(0, maxFileChars)}\n[... ${text.length - maxFileChars} more characters ...]` : text;
        } catch (error) {
          return failed(`reading ${path} in ${name}`, error);
        }
      },
    }),
  };
}
