import { redactValue, redactSecrets } from '../redaction/redact-secrets';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** Maps the spec's LOG_LEVEL spellings (DEBUG, INFO, WARNING, ERROR) onto ours. */
export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  switch ((value ?? '').trim().toLowerCase()) {
    case 'debug': return 'debug';
    case 'info': return 'info';
    case 'warn': case 'warning': return 'warn';
    case 'error': case 'critical': return 'error';
    default: return undefined;
  }
}

/**
 * JSON lines on stderr, every message and field redacted: a log line is the easiest place for a token to leak.
 */
export function createLogger(
  options: { level?: LogLevel; base?: Record<string, unknown>; write?: (line: string) => void } = {},
): Logger {
  const level = options.level ?? 'info';
  const base = options.base ?? {};
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const emit = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const record = { time: new Date().toISOString(), level: at, msg: redactSecrets(message), ...redactValue({ ...base, ...fields }) };
    write(JSON.stringify(record));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level, base: { ...base, ...fields }, write }),
  };
}
