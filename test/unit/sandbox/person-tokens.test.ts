import { describe, expect, it } from 'vitest';
import { loginForEmail, personToken, personTokenLogin, tokenLogin } from '../../../src/sandbox/scmhost-simulator/person-tokens';

const SECRET = 'a3f1c2d4e5b60718293a4b5c6d7e8f90';

describe('person tokens of the sandbox\'s source host', () => {
  it('derive a GitHub-shaped login from an e-mail', () => {
    expect(loginForEmail('someone@example.com')).toBe('someone');
    expect(loginForEmail('Jane.Doe+work@example.com')).toBe('jane-doe-work');
    expect(loginForEmail('--x__y--@example.com')).toBe('x-y');
    expect(loginForEmail(`${'a'.repeat(50)}@example.com`)).toBe('a'.repeat(39));
    expect(loginForEmail('...@example.com')).toBe('user');
  });

  it('act as their own login, and a token nobody issued acts as nobody', () => {
    const token = personToken(SECRET, 'someone');
    expect(personTokenLogin(SECRET, token)).toBe('someone');
    // Another secret, another login with this MAC, a changed MAC, or no secret at all: refused.
    expect(personTokenLogin('another-secret', token)).toBeUndefined();
    expect(personTokenLogin(SECRET, token.replace('sbxp_someone_', 'sbxp_mallory_'))).toBeUndefined();
    expect(personTokenLogin(SECRET, `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`)).toBeUndefined();
    expect(personTokenLogin('', token)).toBeUndefined();
    expect(personTokenLogin(SECRET, 'sbxp_someone_short')).toBeUndefined();
  });

  it('never act as a login one of the simulator\'s own tokens holds, and only own keys of the token table count', () => {
    const login = tokenLogin({ tokens: { 'bot-token': 'service-bot', 'reviewer-token': 'octo-reviewer' }, personTokenSecret: SECRET });
    expect(login('bot-token')).toBe('service-bot');
    expect(login(personToken(SECRET, 'someone'))).toBe('someone');
    // A valid MAC for the bot's login is still not the bot: --as cannot speak for the service.
    expect(login(personToken(SECRET, 'service-bot'))).toBeUndefined();
    expect(login(personToken(SECRET, 'octo-reviewer'))).toBeUndefined();
    for (const inherited of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(login(inherited)).toBeUndefined();
    expect(tokenLogin({ tokens: { t: 'service-bot' } })(personToken(SECRET, 'someone'))).toBeUndefined();
    expect(tokenLogin({})('anything')).toBe('service-bot');
  });
});
