import { PreconditionProviderError } from '../../../../src/providers/provider-errors';

/** GitLab answers a second open MR for the same branches with 409. */
export function ConflictLike(error: unknown): boolean {
  return error instanceof PreconditionProviderError && error.status === 409 && /already exists/.test(error.providerMessage ?? '');
}
