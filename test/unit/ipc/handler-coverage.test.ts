// Every contract method has a handler, a schema and a real service; nothing exists without a
// contract method. A missing or extra one fails here.
import { describe, expect, it } from 'vitest';
import { IPC_CHANNELS, IPC_METHODS, type Area } from '../../../contract/api';
import { createDeskServices } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { ARG_SCHEMAS } from '../../../contract/schemas';
import { recordingServices } from './fake-services';

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('handler coverage', () => {
  it("an area's schemas are built at its first read, once, and then stay the same objects", () => {
    const descriptor = Object.getOwnPropertyDescriptor(ARG_SCHEMAS, 'payins');
    // The first test of this file: nothing has read it yet, so it is still the getter that builds it.
    expect(descriptor?.get).toBeTypeOf('function');
    const first = ARG_SCHEMAS.payins;
    expect(Object.getOwnPropertyDescriptor(ARG_SCHEMAS, 'payins')).toMatchObject({ value: first, writable: false });
    expect(ARG_SCHEMAS.payins).toBe(first);
  });

  it('createIpcHandlers answers every contract channel and no other', () => {
    const handlers = createIpcHandlers(recordingServices().services);
    expect(sorted(Object.keys(handlers))).toEqual(sorted(IPC_CHANNELS));
    for (const channel of IPC_CHANNELS) expect(typeof handlers[channel]).toBe('function');
  });

  it('every contract method has an argument schema and every schema a contract method', () => {
    const schemaChannels = Object.entries(ARG_SCHEMAS).flatMap(([area, verbs]) => Object.keys(verbs).map((verb) => `${area}:${verb}`));
    expect(sorted(schemaChannels)).toEqual(sorted(IPC_CHANNELS));
  });

  it('the real service adapters implement every contract method (none falls back to NOT_AVAILABLE) and nothing more', () => {
    // Building the adapters touches no service yet; a stand-in runtime is enough to list them.
    const runtime = { ctx: {}, events: createDeskEvents(), log: console } as unknown as DeskRuntime;
    const services = createDeskServices(runtime, { name: 'Payout Desk', version: '0', platform: 'linux', demoAvailable: false }, null);
    for (const area of Object.keys(IPC_METHODS) as Area[]) {
      const impl = services[area] as Record<string, unknown>;
      expect(sorted(Object.keys(impl)), area).toEqual(sorted(IPC_METHODS[area]));
      for (const verb of IPC_METHODS[area]) expect(typeof impl[verb], `${area}:${verb}`).toBe('function');
    }
  });

  it('a method missing from the services answers NOT_AVAILABLE, typed, instead of throwing', async () => {
    const { services } = recordingServices();
    const partial = { ...services, app: {} };
    const handlers = createIpcHandlers(partial);
    await expect(handlers['app:info'](undefined)).resolves.toEqual({
      ok: false,
      error: { code: 'NOT_AVAILABLE', message: 'app:info is not available in this build yet', retryable: false },
    });
  });
});
