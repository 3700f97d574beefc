// Builds the desk services, each method taking its profile explicitly; bindProfile turns them into
// the contract-shaped DeskServices. Every contract method is wired here; the handler coverage test
// checks that none is left unimplemented.
import { appService, type AppEnvironment } from './app';
import { auditService } from './audit';
import { balancesService } from './balances';
import { batchesService } from './batches';
import { createCurrencyCache } from './currency-cache';
import { createFileGrants } from './file-grants';
import type { DemoController } from './demo-controller';
import { historyService } from './history';
import { keysService } from './keys';
import { payinsService } from './payins';
import { payoutsService } from './payouts';
import type { ProfileServices } from './profile-binding';
import { profilesService } from './profiles';
import type { DeskRuntime } from './runtime';
import { settingsService } from './settings';

export type { AppEnvironment } from './app';
export type { DemoController } from './demo-controller';
export type { DialogPort } from './dialogs';
export { createFileGrants, type FileGrants } from './file-grants';
export { activeProfileOf, bindActiveProfile, bindProfile, NoProfileError, type ProfileServices } from './profile-binding';

export function createDeskServices(rt: DeskRuntime, env: AppEnvironment, demo: DemoController | null): ProfileServices {
  const currencies = createCurrencyCache(rt);
  const files = env.files ?? createFileGrants();
  return {
    profiles: profilesService(rt, demo),
    keys: keysService(rt, demo, { grants: files, ...(env.dialogs ? { dialogs: env.dialogs } : {}) }),
    payouts: payoutsService(rt, currencies),
    batches: batchesService(rt, currencies, files),
    balances: balancesService(rt, currencies),
    history: historyService(rt, currencies),
    payins: payinsService(rt, currencies, demo),
    audit: auditService(rt),
    settings: settingsService(rt),
    app: appService(rt, env, files),
  };
}
