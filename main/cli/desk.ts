// The CLI's desk: the UI's own services over a desk runtime, called through the very handlers the app
// registers (same guard, schema and error mapping as over IPC). Every command that acts on a profile goes
// through one of these, `team send` included (on its team desk's runtime).
import type { Channel } from '../../contract/api';
import type { AppContext } from '../context';
import { bindProfile, createDeskServices } from '../desk';
import type { DeskRuntime } from '../desk/runtime';
import { DeskError, type AreaResult } from '../desk/services';
import { createIpcHandlers } from '../ipc/handlers';
import type { Profile } from '../profiles/profile-schema';
import type { CliDesk } from './deps';

export function openCliDesk(c: AppContext, runtime: DeskRuntime, profile: Profile): CliDesk {
  const { events } = runtime;
  const app = { name: 'payout-desk', version: 'cli', platform: process.platform, demoAvailable: false };
  // The approvals queue checked whole before it answers: a command ends before any background check would.
  const services = bindProfile(createDeskServices(runtime, app, null, { approvalsCheckBudgetMs: Infinity }), c, () => profile);
  const handlers = createIpcHandlers(services, { log: c.logger });
  return {
    profile,
    runtime,
    events,
    services,
    async call(area, verb, args) {
      const result = await handlers[`${area}:${String(verb)}` as Channel](args);
      if (!result.ok) {
        // Field problems say more than the handler's summary line ("payouts:validate: invalid arguments").
        const fields = (result.error.issues ?? []).slice(0, 5).map((i) => `${i.field}: ${i.message}`);
        throw new DeskError(result.error.code, fields.length > 0 ? fields.join('; ') : result.error.message, result.error.retryable);
      }
      return result.data as AreaResult<typeof area, typeof verb>;
    },
  };
}
