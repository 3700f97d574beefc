// Builds the DeskServices port from the real services. Every contract method is wired here; the
// handler coverage test checks that none is left unimplemented.
import type { DeskRuntime } from '../runtime';
import type { DeskServices } from '../services';
import { appService, auditService, type AppEnvironment } from './app';
import { batchesService } from './batches';
import { createCurrencyCache } from './currency-cache';
import { balancesService, historyService, payoutsService } from './payments';
import { payinsService } from './payins';
import { keysService, profilesService, settingsService, type DemoController } from './profiles';

export type { AppEnvironment } from './app';
export type { DemoController } from './profiles';

export function createDeskServices(rt: DeskRuntime, env: AppEnvironment, demo: DemoController | null): DeskServices {
  const currencies = createCurrencyCache(rt);
  return {
    profiles: profilesService(rt, demo),
    keys: keysService(rt, demo),
    payouts: payoutsService(rt, currencies),
    batches: batchesService(rt, currencies),
    balances: balancesService(rt, currencies),
    history: historyService(rt, currencies),
    payins: payinsService(rt, currencies, demo),
    audit: auditService(rt),
    settings: settingsService(rt),
    app: appService(rt, env),
  };
}
