import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Every `service` command line the README and the documents under docs/ show (in code blocks and in inline code)
 * names a command this build has, and every `--flag` it uses is a flag of that command: a newcomer who copies one gets
 * the command, not "command not found" or "Nonexistent flag". Reads dist/ (built by `npm test` before the tests run).
 */
const root = join(__dirname, '..', '..', '..');
const documents = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];
const readme = documents.map((path) => readFileSync(join(root, path), 'utf8')).join('\n');
// Inline code that is output the README quotes, not a command to run.
const NOT_COMMANDS = [/^service dev is running/, /^service v<version>$/];

function commandLines(): string[] {
  const lines: string[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (/^(npx )?service /.test(command)) lines.push(command);
    }
  }
  for (const span of readme.matchAll(/`((?:npx )?service [^`]+)`/g)) {
    const command = span[1]!.replace(/^npx /, '');
    if (!NOT_COMMANDS.some((pattern) => pattern.test(command)) && !command.includes('...')) lines.push(command);
  }
  return [...new Set(lines.map((line) => line.replace(/^npx /, '')))];
}

/** Shell-like words: quotes keep spaces, `[--a B]` brackets are optional syntax, `a\|b` names alternatives. */
function words(line: string): string[] {
  return [...line.matchAll(/"[^"]*"|'[^']*'|\S+/g)].map((m) => m[0].replace(/^\[|\]$/g, '')).filter(Boolean);
}

describe('the commands in the README and docs/', () => {
  let config: Config;
  beforeAll(async () => {
    config = await Config.load(root);
  });

  it('finds some command lines to check', () => {
    expect(commandLines().length).toBeGreaterThan(30);
  });

  it('name commands and flags that exist', async () => {
    const problems: string[] = [];
    for (const line of commandLines()) {
      const [, ...rest] = words(line);
      // The longest run of words that is a command id; `a\|b` stands for each alternative.
      let ids: string[] = [];
      let used = 0;
      for (let n = 1; n <= Math.min(3, rest.length); n++) {
        const alternatives = rest[n - 1]!.split(/\\?\|/);
        const candidates = alternatives.map((alternative) => [...rest.slice(0, n - 1), alternative].join(':'));
        if (candidates.every((id) => config.findCommand(id))) {
          ids = candidates;
          used = n;
        }
      }
      if (ids.length === 0) {
        // A topic named on its own (`service test-skill`) is fine; anything else is not a command of this build.
        if (!(rest.length === 1 && config.findTopic(rest[0]!))) problems.push(`${line}: no such command`);
        continue;
      }
      const flags = rest.slice(used).filter((word) => word.startsWith('--')).map((word) => word.replace(/=.*$/, '').slice(2));
      for (const id of ids) {
        const command = await config.findCommand(id)!.load();
        const defined = command.flags ?? {};
        // `--no-x` is the negation of a boolean flag `x` that allows it.
        const exists = (flag: string) => flag === 'help' || flag in defined
          || (flag.startsWith('no-') && (defined[flag.slice(3)] as { allowNo?: boolean } | undefined)?.allowNo === true);
        for (const flag of flags) if (!exists(flag)) problems.push(`${line}: ${id.replace(/:/g, ' ')} has no flag --${flag}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
