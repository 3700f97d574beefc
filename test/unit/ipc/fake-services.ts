// A DeskServices whose every method records that it was reached and answers a marker, so tests can
// prove what does (and does not) get past the argument checks.
import { IPC_METHODS, type Area } from '../../../contract/api';
import type { DeskServices } from '../../../main/desk/services';

export interface RecordingServices {
  services: DeskServices;
  calls: { channel: string; args: unknown }[];
}

export function recordingServices(): RecordingServices {
  const calls: RecordingServices['calls'] = [];
  const services: Record<string, Record<string, (args?: unknown) => Promise<unknown>>> = {};
  for (const area of Object.keys(IPC_METHODS) as Area[]) {
    services[area] = {};
    for (const verb of IPC_METHODS[area] as readonly string[]) {
      const fns = services[area];
      if (fns) fns[verb] = async (args?: unknown) => {
        calls.push({ channel: `${area}:${verb}`, args });
        return { reached: `${area}:${verb}` };
      };
    }
  }
  return { services: services as unknown as DeskServices, calls };
}
