import { describe, expect, it } from 'vitest';
import { argumentsCarryCredential, credentialParts, isCredentialName, isCredentialQueryName, looksLikeCredentialValue } from '../../../src/redaction/credential-looking';

describe('credential-looking names and values', () => {
  it('tells credential names from ordinary ones, `auth` but not `author`', () => {
    for (const name of ['Authorization', 'Proxy-Authorization', 'X-Api-Key', 'apikey', 'Cookie', 'X-Auth-Token', 'X-Auth', 'BASIC_AUTH', 'DB_PASSWORD', 'CLIENT_SECRET', 'GITHUB_TOKEN', 'X-Signature']) {
      expect(isCredentialName(name), name).toBe(true);
    }
    for (const name of ['X-Team', 'Accept', 'Content-Type', 'LOG_LEVEL', 'AUTHOR_NAME', 'Keep-Alive', 'REGION']) expect(isCredentialName(name), name).toBe(false);
    expect(isCredentialQueryName('key')).toBe(true);
    expect(isCredentialQueryName('sig')).toBe(true);
    expect(isCredentialQueryName('page')).toBe(false);
  });

  it('tells credential values by scheme, known prefix or a long run of letters and digits', () => {
    for (const value of ['Bearer abc', 'token abc', 'glpat-abcdefghijklmnopqrst', 'sk-ant-abcdefghijklmnopqrst', 'Zx81kq0Pq8nq2m3L0aa9W']) expect(looksLikeCredentialValue(value), value).toBe(true);
    for (const value of ['platform', 'application/json', 'warn', 'eu-west-1', 'https://docs.example.com/mcp']) expect(looksLikeCredentialValue(value), value).toBe(false);
  });

  it('finds a credential on a command line, not a path', () => {
    expect(argumentsCarryCredential(['/workspace/tools/v2/lookup-server.cjs', 'stdio'])).toBe(false);
    expect(argumentsCarryCredential(['server.js', '--token=abc'])).toBe(true);
    expect(argumentsCarryCredential(['server.js', '--api-key', 'abc'])).toBe(true);
    expect(argumentsCarryCredential(['server.js', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'])).toBe(true);
  });

  it('redacts what a server may echo of a credential alone: the token after its scheme, Basic\'s password', () => {
    const basic = Buffer.from('bot:pa55word-x').toString('base64');
    expect(credentialParts(`Basic ${basic}`)).toEqual([`Basic ${basic}`, basic, 'bot:pa55word-x', 'pa55word-x']);
    expect(credentialParts('Bearer t0ken-value')).toEqual(['Bearer t0ken-value', 't0ken-value']);
    expect(credentialParts('plain')).toEqual(['plain']);
  });
});
