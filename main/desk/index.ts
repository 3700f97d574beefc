// Builds the desk services, each method taking its profile explicitly; bindProfile turns them into
// the contract-shaped DeskServices. Every contract method is wired here; the handler coverage test
// checks that none is left unimplemented.
import { appService, type AppEnvironment } from './app';
import { approvalsService } from './approvals';
import { auditService } from './audit';
import { balancesService } from './balances';
import { batchesService } from './batches';
import { createCurrencyCache } from './currency-cache';
import { dualControlService } from './dual-control';
import { createFileGrants } from './file-grants';
import type { DemoController } from './demo-controller';
import { historyService } from './history';
import { overviewService } from './overview';
import { statementsService } from './statements';
import { keysService } from './keys';
import { payeeService } from './payees';
import { payeesIpcService } from './payees-ipc';
import { payinsService } from './payins';
import { peopleService } from './people';
import { payoutsService } from './payouts';
import { PROFILE_FREE, type ProfileServices } from './profile-binding';
import { profilesService } from './profiles';
import type { DeskRuntime } from './runtime';
import { settingsService } from './settings';
import { schedulesService } from './schedules';
import { recurringService } from './recurring';

export type { AppEnvironment } from './app';
export type { DemoController } from './demo-controller';
export type { DialogPort } from './dialogs';
export { createFileGrants, type FileGrants } from './file-grants';
export { activeProfileOf, bindActiveProfile, bindProfile, NoProfileError, type ProfileServices } from './profile-binding';

/**
 * `approvalsCheckBudgetMs`: how long an open of the approvals queue works out subjects itself before listing the rest
 * as not checked yet (approvals.ts); Infinity for a one-shot command, which has no background pass to wait for.
 */
export function createDeskServices(rt: DeskRuntime, env: AppEnvironment, demo: DemoController | null, options: { approvalsCheckBudgetMs?: number } = {}): ProfileServices {
  const currencies = createCurrencyCache(rt);
  const files = env.files ?? createFileGrants();
  const dualControl = dualControlService(rt);
  return sealedFirst(rt, {
    profiles: profilesService(rt, demo),
    keys: keysService(rt, demo, { grants: files, ...(env.dialogs ? { dialogs: env.dialogs } : {}) }),
    payouts: payoutsService(rt, currencies),
    batches: batchesService(rt, currencies, files),
    balances: balancesService(rt, currencies),
    overview: overviewService(rt, currencies),
    statements: statementsService(rt, currencies),
    history: historyService(rt, currencies),
    payins: payinsService(rt, currencies, demo),
    audit: auditService(rt),
    settings: settingsService(rt, files),
    people: peopleService(rt, dualControl),
    approvals: approvalsService(rt, dualControl, options.approvalsCheckBudgetMs === undefined ? {} : { checkBudgetMs: options.approvalsCheckBudgetMs }),
    payees: payeesIpcService(rt, dualControl, payeeService(rt, { secondFactor: dualControl.secondFactor }), files),
    schedules: schedulesService(rt, currencies),
    recurring: recurringService(rt, currencies),
    app: appService(rt, env, files),
  });
}

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * Each method that acts on a profile first waits until that profile's audit key is loaded, so any audit
 * entry it writes is sealed. A keychain that cannot be read does not stop reads (history, balances):
 * a write then fails with the journal's AUDIT_KEY_NEEDED error saying why.
 */
function sealedFirst(rt: DeskRuntime, services: ProfileServices): ProfileServices {
  const free: Partial<Record<string, readonly string[]>> = PROFILE_FREE;
  for (const [area, impl] of Object.entries(services) as [string, Record<string, AnyMethod | undefined>][]) {
    for (const [verb, method] of Object.entries(impl)) {
      if (!method || free[area]?.includes(verb)) continue;
      const fn = method.bind(impl);
      impl[verb] = async (profile: unknown, ...rest: unknown[]) => {
        const id = (profile as { id?: unknown } | null)?.id;
        if (typeof id === 'string') await rt.auditSeal(id).catch(() => undefined);
        return fn(profile, ...rest);
      };
    }
  }
  return services;
}
