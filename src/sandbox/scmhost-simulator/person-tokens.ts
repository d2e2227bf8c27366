/**
 * Tokens the sandbox's source host issues to the people `service sandbox ... --as <email>` acts as, one per login,
 * so a person's review, comment, merge or push is theirs (GitHub authenticates each user by a token of their own).
 * A token is `sbxp_<login>_<MAC>`, the MAC an HMAC-SHA256 of the login under a secret of the sandbox
 * (`person_token_secret` in sandbox.json): whoever can read that file can act as anyone in the sandbox, nobody else
 * can make one up. A person token never acts as a login one of the simulator's own tokens holds (the service's bot),
 * so `--as` cannot speak for the service.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sbxp_';
const LOGIN_LIMIT = 39;

/**
 * A GitHub-shaped login for an e-mail address: its local part, lower-cased, every run of other characters than
 * letters and digits made one hyphen, trimmed of hyphens, at most 39 characters (GitHub's rules); `user` when
 * nothing is left.
 */
export function loginForEmail(email: string): string {
  const local = email.trim().split('@')[0] ?? '';
  const login = local.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, LOGIN_LIMIT).replace(/-+$/, '');
  return login || 'user';
}

function mac(secret: string, login: string): string {
  return createHmac('sha256', secret).update(`sandbox person:${login}`).digest('hex');
}

export function personToken(secret: string, login: string): string {
  return `${PREFIX}${login}_${mac(secret, login)}`;
}

/** The login a person token acts as, or undefined for anything that is not one this secret issued. */
export function personTokenLogin(secret: string, token: string): string | undefined {
  const match = /^sbxp_([a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?)_([0-9a-f]{64})$/.exec(token);
  if (!match || !secret) return undefined;
  const [, login = '', given = ''] = match;
  const expected = Buffer.from(mac(secret, login), 'hex');
  return timingSafeEqual(expected, Buffer.from(given, 'hex')) ? login : undefined;
}

/**
 * Who a token acts as: one of the simulator's own tokens, else a person token whose login none of them holds. Without
 * tokens of its own the simulator takes any token as `service-bot` (tests that do not care).
 */
export function tokenLogin(options: { tokens?: Record<string, string>; personTokenSecret?: string }): (token: string) => string | undefined {
  return (token) => {
    if (!options.tokens) return 'service-bot';
    if (Object.hasOwn(options.tokens, token)) return options.tokens[token];
    if (!options.personTokenSecret) return undefined;
    const login = personTokenLogin(options.personTokenSecret, token);
    const reserved = Object.values(options.tokens).map((held) => held.toLowerCase());
    return login && !reserved.includes(login) ? login : undefined;
  };
}
