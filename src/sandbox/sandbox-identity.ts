/**
 * Who `service sandbox ...` acts as. By default the sandbox's person: pat@example.com in the tracker and
 * octo-reviewer on the source host. With `--as <email>`, that person instead: the tracker's simulator takes any
 * e-mail with any API token (it creates the user on first sight, account id derived from the address), and the
 * source host gets the person token of the login derived from the address (person-tokens.ts). Neither may be the
 * service's own account: a comment or review "by the service" would be one the service ignores as its own echo.
 */
import { loginForEmail, personToken } from './scmhost-simulator/person-tokens';
import { SANDBOX_BOT_LOGIN, SANDBOX_PERSON_EMAIL, SANDBOX_REVIEWER_LOGIN, SANDBOX_SERVICE_EMAIL, type SandboxSettings } from './sandbox-settings';

/** `--as` names nobody the sandbox can act as; the message says what to give instead. */
export class SandboxIdentityError extends Error {
  override readonly name = 'SandboxIdentityError';
}

export interface SandboxIdentity {
  /** The tracker user (Basic credentials `<email>:<any token>`). */
  email: string;
  /** The source-host login the token acts as. */
  login: string;
  scmhostToken: string;
}

const EMAIL = /^[^@\s:]+@[^@\s:]+\.[^@\s:]+$/;

export function sandboxIdentity(as: string | undefined, secrets: SandboxSettings['secrets']): SandboxIdentity {
  if (as === undefined) return { email: SANDBOX_PERSON_EMAIL, login: SANDBOX_REVIEWER_LOGIN, scmhostToken: secrets.reviewer_token };
  const email = as.trim();
  if (!EMAIL.test(email) || email.length > 254) {
    throw new SandboxIdentityError(`--as takes an e-mail address such as someone@example.com, got "${as.slice(0, 100)}"`);
  }
  const login = loginForEmail(email);
  if (email.toLowerCase() === SANDBOX_SERVICE_EMAIL || login === SANDBOX_BOT_LOGIN) {
    throw new SandboxIdentityError(`--as ${email} would act as the service's own account (${SANDBOX_SERVICE_EMAIL} in the tracker, ${SANDBOX_BOT_LOGIN} on the source host), whose actions the service ignores: use a person's e-mail`);
  }
  if (login === SANDBOX_REVIEWER_LOGIN) return { email, login, scmhostToken: secrets.reviewer_token };
  if (!secrets.person_token_secret) {
    throw new SandboxIdentityError('this sandbox was started by an older build that issues no person tokens: restart `service dev --sandbox` to use --as');
  }
  return { email, login, scmhostToken: personToken(secrets.person_token_secret, login) };
}
