// createIpcHandlers: channel → (args: unknown) => Promise<Result>. No electron import, so
// main/ipc/register.ts, the Playwright harness and the tests use the very same functions. Each call runs
// the stages in order, and any stage can end it with a typed error:
//   structural guard → schema → service (or NOT_AVAILABLE) → error mapping.
// A handler never throws and never returns a secret it was not built to return.
import type { z } from 'zod';
import { IPC_METHODS, type Area, type Channel, type IpcHandlerMap, type Result } from '../../contract/api';
import type { Logger } from '../log';
import { guardArgument } from './argument-guard';
import { invalidArgument, issuesFromZod, notAvailable, toIpcError } from '../desk/errors';
import { ARG_SCHEMAS } from '../../contract/schemas';
import type { DeskServices } from '../desk/services';

export interface IpcHandlerOptions {
  log?: Logger;
}

type ServiceFn = (args?: unknown) => Promise<unknown>;

function handlerFor(channel: string, schemaOf: () => z.ZodType | undefined, service: ServiceFn | undefined, log?: Logger) {
  return async (args: unknown): Promise<Result<unknown>> => {
    try {
      const guard = guardArgument(args);
      if (!guard.ok) {
        log?.warn('ipc argument refused', { channel, path: guard.path, reason: guard.reason });
        return { ok: false, error: invalidArgument(`${guard.path || 'argument'}: ${guard.reason}`, [{ field: guard.path || '(arguments)', code: 'REFUSED', message: guard.reason }]) };
      }
      // Read at the call: the area's schemas are built at its first call (contract/schemas.ts).
      const schema = schemaOf();
      if (!schema) throw new Error(`no argument schema for ${channel}`);
      const parsed = schema.safeParse(args);
      if (!parsed.success) return { ok: false, error: invalidArgument(`${channel}: invalid arguments`, issuesFromZod(parsed.error)) };
      if (!service) return { ok: false, error: notAvailable(channel) };
      const data = await service(parsed.data);
      return { ok: true, data };
    } catch (error) {
      const mapped = toIpcError(error);
      if (mapped.code === 'INTERNAL') log?.error('ipc handler failed', { channel, error });
      return { ok: false, error: mapped };
    }
  };
}

export function createIpcHandlers(services: DeskServices, options: IpcHandlerOptions = {}): IpcHandlerMap {
  const handlers: Partial<Record<Channel, (args: unknown) => Promise<Result<unknown>>>> = {};
  for (const area of Object.keys(IPC_METHODS) as Area[]) {
    const impl = services[area] as Record<string, ServiceFn | undefined>;
    for (const verb of IPC_METHODS[area] as readonly string[]) {
      const channel = `${area}:${verb}` as Channel;
      // Every channel has its schema: test/unit/ipc/handler-coverage.test.ts compares the two lists.
      const schemaOf = () => {
        const schemas = ARG_SCHEMAS[area] as Record<string, z.ZodType | undefined>;
        return Object.hasOwn(schemas, verb) ? schemas[verb] : undefined;
      };
      // Own properties only: a verb must never resolve to something on Object.prototype.
      const service = Object.hasOwn(impl, verb) ? impl[verb]?.bind(impl) : undefined;
      handlers[channel] = handlerFor(channel, schemaOf, service, options.log);
    }
  }
  // Built from the same channel list the contract is checked against; the coverage test proves it.
  return Object.freeze(handlers) as IpcHandlerMap;
}
