// A structural check of every incoming IPC argument, run before its schema: bounded depth, bounded
// size, plain data only, and no keys that could poison an object prototype. The schema then checks
// the exact shape; this guard makes sure nothing odd even reaches the schema library.
import { MAX_LIST_ITEMS } from '../../contract/limits';

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
export const MAX_DEPTH = 8;
// The schemas' longest list (the contract's MAX_LIST_ITEMS): the guard's value count is derived from it, so a
// list the schema accepts always gets past the guard.
export { MAX_LIST_ITEMS };
/** Every value counts once: a list at its limit plus the object around it and its other fields. */
export const MAX_NODES = MAX_LIST_ITEMS + 1_000;
/** The largest single value allowed anywhere: a base64 CSV at the CSV size cap, with headroom. */
export const MAX_STRING_LENGTH = 72 * 1024 * 1024;
export const MAX_BYTES_LENGTH = 52 * 1024 * 1024;

export type GuardVerdict = { ok: true } | { ok: false; path: string; reason: string };

export function guardArgument(value: unknown): GuardVerdict {
  let nodes = 0;
  const visit = (v: unknown, path: string, depth: number): GuardVerdict => {
    nodes += 1;
    if (nodes > MAX_NODES) return { ok: false, path, reason: `too many values (a list holds at most ${MAX_LIST_ITEMS.toLocaleString('en')} items)` };
    if (v === null || v === undefined || typeof v === 'boolean') return { ok: true };
    if (typeof v === 'number') return Number.isFinite(v) ? { ok: true } : { ok: false, path, reason: 'not a finite number' };
    if (typeof v === 'string') return v.length <= MAX_STRING_LENGTH ? { ok: true } : { ok: false, path, reason: 'text too long' };
    if (v instanceof Uint8Array) return v.byteLength <= MAX_BYTES_LENGTH ? { ok: true } : { ok: false, path, reason: 'file too large' };
    if (typeof v !== 'object') return { ok: false, path, reason: `unsupported ${typeof v}` };
    if (depth >= MAX_DEPTH) return { ok: false, path, reason: 'nested too deeply' };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i += 1) {
        const inner = visit(v[i], `${path}[${i}]`, depth + 1);
        if (!inner.ok) return inner;
      }
      return { ok: true };
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return { ok: false, path, reason: 'not a plain object' };
    for (const key of Reflect.ownKeys(v)) {
      if (typeof key === 'symbol') return { ok: false, path, reason: 'symbol key' };
      if (FORBIDDEN_KEYS.has(key)) return { ok: false, path: path ? `${path}.${key}` : key, reason: 'forbidden key' };
      const inner = visit((v as Record<string, unknown>)[key], path ? `${path}.${key}` : key, depth + 1);
      if (!inner.ok) return inner;
    }
    return { ok: true };
  };
  return visit(value, '', 0);
}
