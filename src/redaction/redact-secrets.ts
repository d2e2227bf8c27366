/**
 * One place that removes credentials from text before it is logged, posted to a provider, written to the timeline
 * or handed to a container. Two passes: the values of secret-bearing environment variables (exact matches, so a
 * token that leaks verbatim is always caught) and well-known credential shapes (so a token we were never told about
 * is still caught).
 */

export const REDACTED = '[REDACTED]';

const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|CREDENTIAL|ACCESS_KEY)/i;

// Shorter values would redact ordinary words ("true", "dev"); such values are not credentials worth the noise.
const MIN_SECRET_LENGTH = 6;

const CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  [/(authorization\s*[:=]\s*)(basic|bearer|token)\s+[A-Za-z0-9._~+/=-]+/gi, `$1$2 ${REDACTED}`],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/-]{12,}=*/gi, `$1 ${REDACTED}`],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})\b/g, REDACTED],
  [/\b(sk-(?:ant-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|xox[abpr]-[A-Za-z0-9-]{10,})\b/g, REDACTED],
  [/(\b[a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi, `$1$2:${REDACTED}@`],
  [/([?&](?:access_token|token|api_key|apikey|private_token|password|secret)=)[^&\s"']+/gi, `$1${REDACTED}`],
  [/(x-hub-signature(?:-256)?\s*[:=]\s*)[^\s"',]+/gi, `$1${REDACTED}`],
];

/**
 * Secrets of this process that no environment variable name announces: credentials written in a configuration file
 * (the tool-server file's literal headers) or read from a variable of any name. Added when the file is loaded;
 * redacted from then on wherever the defaults below apply (log lines, errors).
 */
const registered = new Set<string>();

export function registerSecretValues(values: Iterable<string>): void {
  for (const value of values) if (value.length >= MIN_SECRET_LENGTH) registered.add(value);
}

/** For tests only. */
export function forgetRegisteredSecrets(): void {
  registered.clear();
}

/**
 * The values of secret-bearing variables in an environment, and the registered secrets, longest first so
 * overlapping values redact fully.
 */
export function secretValuesFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set<string>(registered);
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

export function redactSecrets(text: string, secrets: readonly string[] = secretValuesFromEnv()): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) result = result.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of CREDENTIAL_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

/** Redacts every string inside a JSON-like value, for structured log lines and timeline details. */
export function redactValue<T>(value: T, secrets: readonly string[] = secretValuesFromEnv()): T {
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_NAME.test(key) && typeof item === 'string' && item ? REDACTED : redactValue(item, secrets);
    }
    return out as T;
  }
  return value;
}
