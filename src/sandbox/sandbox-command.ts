import { Command, Flags } from '@oclif/core';
import { DevStackConfigError } from '../temporal/dev-stack-config';
import { AmbiguousStackError, useRunningStack } from '../temporal/which-stack';
import { PersonGitError, RepositoryPathError } from './person-git';
import { SandboxIdentityError } from './sandbox-identity';
import { SandboxPerson, SandboxRequestError, SandboxUnavailableError } from './sandbox-person';
import { sandboxStateDir } from './sandbox-settings';

/** The flags every `service sandbox ...` command takes to find the running sandbox (as `service dev` was given them). */
export const sandboxFlags = {
  'data-dir': Flags.string({ description: 'the data folder `service dev --sandbox` runs with (default: the one sandbox stack running, else server.data_dir of the stack file)' }),
  config: Flags.string({ description: 'dev stack file', default: 'temporal-dev.yaml' }),
  as: Flags.string({
    description: 'act as this person (an e-mail): the tracker user of that address and, on the source host, the login made of its local part (default pat@example.com and octo-reviewer)',
    helpValue: '<email>',
  }),
};

const ONE_LINE_ERRORS = [SandboxUnavailableError, SandboxRequestError, SandboxIdentityError, RepositoryPathError, PersonGitError, DevStackConfigError, AmbiguousStackError];

/**
 * Runs one person's action against the running sandbox; an unreachable sandbox or a refused request is one line on
 * stderr and exit 1, not a stack trace.
 */
export async function actInSandbox(command: Command, flags: { 'data-dir'?: string; config: string; as?: string }, act: (person: SandboxPerson) => Promise<string>): Promise<void> {
  try {
    // The one sandbox stack running when no --data-dir names one (src/temporal/which-stack.ts); two or more: refused.
    const stack = useRunningStack(process.env, { dataDir: flags['data-dir'], sandboxOnly: true });
    if (stack.line) process.stderr.write(`${stack.line}\n`);
    const person = await SandboxPerson.connect(sandboxStateDir({ dataDir: stack.dataDir, config: flags.config }), { as: flags.as });
    command.log(await act(person));
  } catch (error) {
    if (ONE_LINE_ERRORS.some((type) => error instanceof type)) command.error((error as Error).message, { exit: 1 });
    throw error;
  }
}
