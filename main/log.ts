// A small logger interface for services, with redaction applied to every line before it leaves.
// Rule (DESIGN.md §2, issue 3): a private key, a merchant secret or a general token never reaches a
// log. Services log through this interface only; the redaction below is the last line of defence,
// the first is that services never pass key material or tokens to a logger at all.

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const REDACTED = '[REDACTED]';

// PEM blocks of any kind (private keys, encrypted keys; public keys are harmless but are cut too).
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g;
// Compact JWS/JWT: base64url header starting with {" ("eyJ"), payload, optional signature.
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?/g;
// Authorization header values, in "Authorization: Bearer x" or JSON '"authorization":"Bearer x"' form.
const AUTH_HEADER = /(authorization["']?\s*[:=]\s*["']?)(?:bearer|basic)?\s*[^\s"',}]+/gi;
// A Bearer credential on its own ("Bearer x" logged without the Authorization name before it); any
// token shape, not only JWTs, since a gateway may issue opaque tokens.
const BEARER = /\b(bearer\s+)[A-Za-z0-9._~+/-]+=*/gi;
// "secret": "…" or secret=… in text that happens to contain serialized bodies.
const SECRET_FIELD = /((?:secret|password|passphrase|x-signature)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi;

/** Removes key material, tokens, secrets and authorization values from free text. */
export function redactText(text: string): string {
  return text
    .replace(PEM_BLOCK, REDACTED)
    .replace(JWT, REDACTED)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(SECRET_FIELD, `$1${REDACTED}`);
}

// Matched against the key lower-cased without '-' and '_', at its end, so prefixed names are caught
// too (merchantSecret, client_secret, refreshToken, x-signature), as SECRET_FIELD already does in text.
const SENSITIVE_KEY = /(secret|password|passphrase|token|apikey|authorization|signature|privatekey|privatekeypem|wrapkey)s?$/;

function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key.toLowerCase().replace(/[-_]/g, ''));
}

/** Deep copy of structured log fields with sensitive keys masked and every string redacted. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[…]';
  if (typeof value === 'string') return redactText(value);
  if (value instanceof Error) return redactedError(value, depth);
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // A flag (hasSecret: true) carries nothing secret and stays readable.
      out[k] = isSensitiveKey(k) && typeof v !== 'boolean' ? REDACTED : redactFields(v, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * An error as a log field: its name, message, code, stack and cause, each redacted. The stack is what
 * lets a bug be found from a log file; its first line repeats the message, so it is redacted like one.
 */
function redactedError(error: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: redactText(error.message) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out['code'] = code;
  if (typeof error.stack === 'string') out['stack'] = redactText(error.stack);
  if (error.cause !== undefined) out['cause'] = redactFields(error.cause, depth + 1);
  return out;
}

/** One log line as text: ISO time, level, redacted message and redacted JSON fields. */
export function formatLogLine(level: LogLevel, message: string, fields?: LogFields): string {
  const suffix = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(redactFields(fields))}` : '';
  return `${new Date().toISOString()} ${level.toUpperCase()} ${redactText(message)}${suffix}`;
}

/** A logger that writes redacted lines to a sink (stderr by default, so CLI stdout stays clean). */
export function createLogger(sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  return {
    info: (m, f) => sink(formatLogLine('info', m, f)),
    warn: (m, f) => sink(formatLogLine('warn', m, f)),
    error: (m, f) => sink(formatLogLine('error', m, f)),
  };
}

/** A logger that drops everything (CLI default unless --verbose). */
export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface CapturingLogger extends Logger {
  /** Every formatted (redacted) line written so far. */
  readonly lines: string[];
  /** The raw, unredacted messages and fields, so tests can prove services never pass secrets at all. */
  readonly raw: string[];
}

/** For tests: keeps each line both as written (redacted) and as passed in (raw). */
export function createCapturingLogger(): CapturingLogger {
  const lines: string[] = [];
  const raw: string[] = [];
  const write = (level: LogLevel) => (message: string, fields?: LogFields) => {
    raw.push(`${level} ${message} ${fields ? safeJson(fields) : ''}`);
    lines.push(formatLogLine(level, message, fields));
  };
  return { lines, raw, info: write('info'), warn: write('warn'), error: write('error') };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v));
  } catch {
    return String(value);
  }
}
