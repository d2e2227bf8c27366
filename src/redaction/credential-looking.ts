/**
 * Whether a configured name or value is a credential, for settings written in files (the tool-server file), where no
 * environment variable name tells. Leaning towards yes: a value wrongly taken for a credential is only redacted, a
 * credential missed leaks. Pure.
 */
import { redactSecrets } from './redact-secrets';

/** Header, variable and query-parameter names that carry credentials by convention. `auth` alone, not `author`. */
const CREDENTIAL_NAME = /(token|secret|passw|api[-_]?key|private[-_]?key|access[-_]?key|credential|cookie|session|signature|authoriz|authentic|(^|[-_])auth($|[-_]))/i;
/** Query parameters some services take credentials in, too short to be told by the pattern above. */
const CREDENTIAL_QUERY_NAME = /^(key|sig|code|auth)$/i;
const AUTH_SCHEME = /^(bearer|basic|token|apikey|api-key|digest)\s+(\S+)$/i;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

export function isCredentialQueryName(name: string): boolean {
  return CREDENTIAL_NAME.test(name) || CREDENTIAL_QUERY_NAME.test(name);
}

/**
 * A value with an authorization scheme, a well-known token shape (the redaction patterns), or a long run of token
 * characters mixing letters and digits (an API key of an unknown service).
 */
export function looksLikeCredentialValue(value: string): boolean {
  const trimmed = value.trim();
  if (AUTH_SCHEME.test(trimmed)) return true;
  if (redactSecrets(trimmed, []) !== trimmed) return true;
  return /^[A-Za-z0-9._~+/=-]{20,}$/.test(trimmed) && /[A-Za-z]/.test(trimmed) && /\d/.test(trimmed);
}

/**
 * Whether a command line hands over a credential: an argument with a known credential shape (a scheme, a token
 * prefix; not the long-run rule, which paths would meet), `--token=...`, or the value after `--token`.
 */
export function argumentsCarryCredential(args: readonly string[]): boolean {
  return args.some((arg, index) => {
    const option = /^--?([\w-]+)=(.*)$/.exec(arg);
    if (option && isCredentialName(option[1]!) && option[2] !== '') return true;
    const previous = index > 0 ? /^--?([\w-]+)$/.exec(args[index - 1]!) : null;
    if (previous && isCredentialName(previous[1]!)) return true;
    return AUTH_SCHEME.test(arg.trim()) || redactSecrets(arg, []) !== arg;
  });
}

/**
 * The strings to redact for a credential value: the value, and what a server may echo of it alone: the token after
 * an authorization scheme, and for Basic the decoded `user:password` and the password.
 */
export function credentialParts(value: string): string[] {
  const trimmed = value.trim();
  const parts = [trimmed];
  const scheme = AUTH_SCHEME.exec(trimmed);
  if (scheme) {
    const token = scheme[2]!;
    parts.push(token);
    if (scheme[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(token, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0 && /^[\x20-\x7e]+$/.test(decoded)) parts.push(decoded, decoded.slice(colon + 1));
    }
  }
  return [...new Set(parts.filter((part) => part !== ''))];
}
