// The canonical form of what people sign: JSON with object keys sorted (by UTF-16 code units), no
// whitespace, strings escaped as JSON.stringify escapes them, and only safe integers as numbers (amounts
// are decimal strings). For this subset that is exactly RFC 8785 (JCS), so another implementation can
// recompute a digest byte for byte. Anything outside the subset is refused rather than guessed at:
// a float, NaN, undefined in an array, a Date or a Map would each serialise differently elsewhere.
import { createHash } from 'node:crypto';
import { CodedError } from '../domain/coded-error';

export class CanonicalError extends CodedError<'NOT_CANONICAL'> {
  constructor(message: string) {
    super('NOT_CANONICAL', message);
  }
}

function write(value: unknown, path: string, out: string[]): void {
  if (value === null || typeof value === 'boolean') {
    out.push(String(value));
  } else if (typeof value === 'string') {
    out.push(JSON.stringify(value));
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new CanonicalError(`${path} is ${value}: only safe integers may be signed (amounts are decimal strings)`);
    out.push(String(value));
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(',');
      if (item === undefined) throw new CanonicalError(`${path}[${i}] is undefined`);
      write(item, `${path}[${i}]`, out);
    });
    out.push(']');
  } else if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    out.push('{');
    let first = true;
    for (const key of Object.keys(value).sort()) {
      const inner = (value as Record<string, unknown>)[key];
      if (inner === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      write(inner, `${path}.${key}`, out);
    }
    out.push('}');
  } else {
    throw new CanonicalError(`${path} is a ${typeof value === 'object' ? (value?.constructor?.name ?? 'object') : typeof value}, which has no canonical form`);
  }
}

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, '$', out);
  return out.join('');
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
