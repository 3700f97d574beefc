// Every channel gets hostile arguments: wrong types, huge strings, prototype-pollution keys, deep
// nesting, unknown keys, non-plain objects. Each answer is a typed INVALID_ARGUMENT error; the
// handler never throws and the service is never reached. Valid arguments do reach it, so the
// refusals below are the checks working, not a handler that refuses everything.
import { describe, expect, it } from 'vitest';
import { IPC_CHANNELS, type Channel, type Result } from '../../../contract/api';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { recordingServices } from './fake-services';
import { VALID_ARGS } from './valid-args';

const HUGE = 'x'.repeat(1_000_000);

function plainOf(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function hostileVariants(channel: Channel): [string, unknown][] {
  const valid = VALID_ARGS[channel];
  const base = plainOf(valid);
  const variants: [string, unknown][] = [
    ['a number', 42],
    ['a string', 'payouts:create'],
    ['an array', [valid]],
    ['null', null],
    ['a boolean', true],
    ['NaN', Number.NaN],
    ['a Date', new Date()],
    ['a Map', new Map([['a', 1]])],
    ['a function', () => 'pwned'],
    ['an own __proto__ key', JSON.parse(`{"__proto__": {"polluted": true}${base ? `, ${JSON.stringify(base).slice(1, -1)}` : ''}}`.replace(/, }$/, '}'))],
    ['a nested __proto__ key', { ...(base ?? {}), filters: JSON.parse('{"__proto__": {"isAdmin": true}}') }],
    ['a constructor.prototype key', { ...(base ?? {}), constructor: { prototype: { polluted: true } } }],
    ['a prototype key', { ...(base ?? {}), prototype: { polluted: true } }],
    ['deep nesting', { ...(base ?? {}), extra: JSON.parse('{"a":'.repeat(30) + '1' + '}'.repeat(30)) }],
    ['an 80 MB string', { ...(base ?? {}), blob: 'y'.repeat(80 * 1024 * 1024) }],
  ];
  if (valid === undefined) variants.push(['an empty object for a method without arguments', {}]);
  if (base) {
    variants.push(['an unknown key', { ...base, isAdmin: true }]);
    for (const [key, value] of Object.entries(base)) {
      variants.push([`${key} as a wrong type`, { ...base, [key]: typeof value === 'number' ? 'not a number' : 12345 }]);
      if (typeof value === 'string') variants.push([`${key} as a 1 MB string`, { ...base, [key]: `${HUGE}\u0000` }]);
    }
  }
  return variants;
}

describe('hostile arguments on every channel', () => {
  it.each(IPC_CHANNELS.map((c) => [c]))('%s refuses hostile arguments before any service', async (channel) => {
    const { services, calls } = recordingServices();
    const handle = createIpcHandlers(services)[channel];
    for (const [name, args] of hostileVariants(channel)) {
      let result: Result<unknown> | undefined;
      await expect((async () => (result = await handle(args)))(), name).resolves.toBeDefined();
      expect(result?.ok, `${channel} with ${name}`).toBe(false);
      if (result && !result.ok) {
        expect(result.error.code, `${channel} with ${name}`).toBe('INVALID_ARGUMENT');
        expect(result.error.retryable).toBe(false);
        expect(result.error.message.length).toBeLessThanOrEqual(500);
      }
    }
    expect(calls, `${channel}: a service was reached`).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });

  it.each(IPC_CHANNELS.map((c) => [c]))('%s passes valid arguments to its service', async (channel) => {
    const { services, calls } = recordingServices();
    const result = await createIpcHandlers(services)[channel](VALID_ARGS[channel]);
    expect(result).toEqual({ ok: true, data: { reached: channel } });
    expect(calls).toHaveLength(1);
  });

  it('names the offending field in the error', async () => {
    const { services } = recordingServices();
    const result = await createIpcHandlers(services)['payouts:get']({ idPayout: '../../etc/passwd' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.issues?.[0]?.field).toBe('idPayout');
  });
});
