import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets, redactValue, secretValuesFromEnv } from '../../../src/redaction/redact-secrets';

describe('redactSecrets', () => {
  it('removes the values of secret-bearing environment variables', () => {
    const secrets = secretValuesFromEnv({ TRACKER_API_TOKEN: 'atl-very-secret-123', LOG_LEVEL: 'debug', SCMHOST_TOKEN: 'short' });
    expect(secrets).toEqual(['atl-very-secret-123']);
    expect(redactSecrets('token atl-very-secret-123 leaked; level debug', secrets)).toBe(`token ${REDACTED} leaked; level debug`);
  });

  it('removes well-known credential shapes it was never told about', () => {
    const text = [
      'Authorization: Basic Ym90QGV4YW1wbGUuY29tOnRva2Vu',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'glpat-abcdefghijklmnopqrst',
      'https://user:hunter22@git.example.com/acme/api.git',
      'https://x.example/api?private_token=abc123&page=2',
    ].join('\n');
    const out = redactSecrets(text, []);
    expect(out).not.toMatch(/Ym90QGV4|ghp_abc|glpat-abc|hunter22|abc123/);
    expect(out).toContain('page=2');
  });

  it('redacts nested values and secret-named keys in structured data', () => {
    expect(redactValue({ apiToken: 'x', nested: [{ note: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' }] }, [])).toEqual({
      apiToken: REDACTED,
      nested: [{ note: REDACTED }],
    });
  });
});
