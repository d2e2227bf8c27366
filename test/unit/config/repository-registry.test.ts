import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  apiV4BaseUrl,
  connectionCredential,
  findRegistryRepository,
  loadRepositoryRegistry,
  parseRepositoryRegistry,
  RepositoryRegistryError,
  resetRepositoryRegistryCache,
} from '../../../src/config/repository-registry';

const VALID = `
connections:
  corp:
    provider: gitlab
    base_url: https://git.corp.example/gitlab/
    credential_env: CORP_GITLAB_TOKEN
    webhook_secret_env: CORP_GITLAB_WEBHOOK_SECRET
  saas:
    provider: gitlab
    base_url: https://gitlab.com/api/v4
    credential_env: GITLAB_TOKEN
repositories:
  payments:
    provider: gitlab
    connection: corp
    namespace: fin/payments
    default_branch: develop
    change_request_mode: direct
  web:
    provider: gitlab
    connection: saas
    namespace: acme/web
`;

describe('repository registry file', () => {
  afterEach(() => resetRepositoryRegistryCache());

  it('appends /api/v4 to host URLs, keeps self-managed prefixes, and keeps explicit v4 URLs', () => {
    expect(apiV4BaseUrl('https://git.corp.example/gitlab/')).toBe('https://git.corp.example/gitlab/api/v4');
    expect(apiV4BaseUrl('https://gitlab.com')).toBe('https://gitlab.com/api/v4');
    expect(apiV4BaseUrl('https://gitlab.com/api/v4/')).toBe('https://gitlab.com/api/v4');
  });

  it('parses connections and repositories with defaults', () => {
    const registry = parseRepositoryRegistry(VALID, 'repos.yaml');
    expect(registry.connections.get('corp')?.apiBaseUrl).toBe('https://git.corp.example/gitlab/api/v4');
    expect(registry.repositories.get('payments')).toMatchObject({ namespace: 'fin/payments', defaultBranch: 'develop', changeRequestMode: 'direct', connection: { name: 'corp' } });
    expect(registry.repositories.get('web')).toMatchObject({ defaultBranch: 'main', changeRequestMode: 'direct', connection: { apiBaseUrl: 'https://gitlab.com/api/v4' } });
    expect(findRegistryRepository(registry, 'FIN/payments')?.name).toBe('payments');
    expect(findRegistryRepository(registry, 'acme/unlisted')).toBeUndefined();
  });

  it('reports every problem with its location', () => {
    const text = `
connections:
  corp: { provider: gitlab, base_url: not-a-url, credential_env: "bad name" }
repositories:
  x: { provider: gitlab, connection: corp, namespace: noslash, surprise: 1 }
`;
    const error = (() => { try { parseRepositoryRegistry(text, 'r.yaml'); } catch (e) { return e as Error; } return undefined; })();
    expect(error).toBeInstanceOf(RepositoryRegistryError);
    expect(error?.message).toContain('Invalid repository registry r.yaml');
    expect(error?.message).toContain('connections.corp.base_url');
    expect(error?.message).toContain('connections.corp.credential_env: must be an environment variable name');
    expect(error?.message).toContain('repositories.x.namespace: must be a group/project path');
    expect(error?.message).toMatch(/repositories\.x.*surprise/);
  });

  it('rejects a repository whose connection is unknown or of another provider', () => {
    expect(() => parseRepositoryRegistry('repositories:\n  x: { provider: gitlab, connection: nope, namespace: a/b }\n'))
      .toThrow('unknown connection "nope" (known: none)');
    expect(() => parseRepositoryRegistry('connections:\n  c: { provider: github, base_url: "https://x", credential_env: T }\n'))
      .toThrow('connections.c.provider');
  });

  it('loads the file once per process and names a missing credential variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-'));
    const path = join(dir, 'repos.yaml');
    writeFileSync(path, VALID);
    const env = { SERVICE_REPOS_CONFIG_PATH: path, CORP_GITLAB_TOKEN: 'glpat-secret' };
    const first = loadRepositoryRegistry(env);
    writeFileSync(path, 'connections: {}\n');
    expect(loadRepositoryRegistry(env)).toBe(first);
    const payments = first?.repositories.get('payments');
    expect(payments && connectionCredential(payments.connection, env)).toBe('glpat-secret');
    const web = first?.repositories.get('web');
    expect(() => web && connectionCredential(web.connection, env)).toThrow('set GITLAB_TOKEN');
    expect(loadRepositoryRegistry({})).toBeUndefined();
    expect(() => loadRepositoryRegistry({ SERVICE_REPOS_CONFIG_PATH: join(dir, 'missing.yaml') })).toThrow('cannot read file: ENOENT');
  });
});
