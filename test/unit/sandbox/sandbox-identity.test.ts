import { describe, expect, it } from 'vitest';
import { personTokenLogin } from '../../../src/sandbox/scmhost-simulator/person-tokens';
import { sandboxIdentity, SandboxIdentityError } from '../../../src/sandbox/sandbox-identity';
import { newSandboxSettings } from '../../../src/sandbox/sandbox-settings';

describe('who service sandbox ... acts as', () => {
  const { secrets } = newSandboxSettings();

  it('is pat@example.com and octo-reviewer by default, and the person of --as otherwise', () => {
    expect(sandboxIdentity(undefined, secrets)).toEqual({ email: 'pat@example.com', login: 'octo-reviewer', scmhostToken: secrets.reviewer_token });
    const someone = sandboxIdentity(' someone@example.com ', secrets);
    expect(someone).toMatchObject({ email: 'someone@example.com', login: 'someone' });
    expect(personTokenLogin(secrets.person_token_secret!, someone.scmhostToken)).toBe('someone');
    expect(sandboxIdentity('octo-reviewer@example.com', secrets).scmhostToken).toBe(secrets.reviewer_token);
  });

  it('refuses what is not an e-mail, and the service\'s own account on either side', () => {
    for (const bad of ['someone', 'someone@', '@example.com', 'a b@example.com', 'x:y@example.com', `${'a'.repeat(250)}@example.com`]) {
      expect(() => sandboxIdentity(bad, secrets), bad).toThrow(SandboxIdentityError);
    }
    expect(() => sandboxIdentity('nobody', secrets)).toThrow('--as takes an e-mail address such as someone@example.com, got "nobody"');
    expect(() => sandboxIdentity('Service@Sandbox.Local', secrets)).toThrow(/the service's own account/);
    expect(() => sandboxIdentity('service-bot@example.com', secrets)).toThrow(/the service's own account/);
    expect(() => sandboxIdentity('service.bot@example.com', secrets)).toThrow(/the service's own account/);
  });

  it('says to restart a sandbox whose settings predate person tokens', () => {
    const { person_token_secret: _none, ...old } = secrets;
    expect(() => sandboxIdentity('someone@example.com', old)).toThrow(/restart `service dev --sandbox` to use --as/);
  });
});
