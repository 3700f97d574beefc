// One run of the desk "process" in the simulation, on the production wiring: the app context, the
// DeskRuntime and the desk services the IPC handlers and the CLI use, over the profile's records that survive
// crashes (its SQLite journal file in the data folder, or its team database: adapters.ts). Only the network
// is replaced (the gateway model's adapter).
import { createAppContext, type AppContext } from '../../main/context';
import type { PayoutEngine } from '../../main/engine';
import { createDeskServices } from '../../main/desk';
import { createDeskEvents } from '../../main/desk/events';
import { bindActiveProfile } from '../../main/desk/profile-binding';
import { createDeskRuntime, type DeskRuntime } from '../../main/desk/runtime';
import type { DeskServices } from '../../main/desk/services';
import type { DeskJournal } from '../../main/journal';
import type { MemoryKeyStore } from '../../main/keys/key-store';
import type { ChainRecord } from '../../main/trust/chain-record';
import { silentLogger } from '../../main/log';
import { SIM_PROFILE, type SimJournal, type SimStorage } from './adapters';
import { dualControlService } from '../../main/desk/dual-control';
import { PREPARER, sessionOf, setUpDualControl } from './dual-control';
import type { GatewayModel } from './gateway-model';
import { SIM_LATE_WINDOW_MINUTES, SIM_PROFILE_ZONE } from './calendar-steps';

export { SIM_PROFILE };
const SIM_SECRET = 'simulated-merchant-secret';

export interface SimDesk {
  readonly generation: number;
  readonly ctx: AppContext;
  readonly runtime: DeskRuntime;
  readonly services: DeskServices;
  /** The profile's journal, as this desk process has it open, with what the oracle reads beside it. */
  journal(): Promise<SimJournal>;
  /** Crashed or quit: this process does nothing more. */
  readonly dead: boolean;
  /** The started engine (started on first use, like the app does at launch). */
  engine(): Promise<PayoutEngine<DeskJournal>>;
  /** An abrupt end: nothing more is written, no answer reaches it, nothing is flushed. */
  crash(): void;
  /** The user quits: the runtime closes as the app does. */
  quit(): Promise<void>;
}

/** Creates the data folder's profile once (a merchant secret in the keychain; no key files to read), pointed at its records. */
export async function prepareHome(home: string, keyStore: MemoryKeyStore, storage: SimStorage): Promise<void> {
  const ctx = createAppContext({ home, keyStore });
  try {
    // The calendar's settings: a named zone (not the machine's, so a run replays anywhere) and a late window short
    // enough for a desk down some simulated minutes to find its releases LATE.
    ctx.profiles.add({
      id: SIM_PROFILE, name: 'Simulation', baseUrl: 'https://gateway.sim.invalid', merchantCode: 'SIM-MERCHANT', useDeprecatedSecret: true,
      timeZone: SIM_PROFILE_ZONE, lateReleaseWindowMinutes: SIM_LATE_WINDOW_MINUTES,
    });
    ctx.profiles.setCurrent(SIM_PROFILE);
    storage.prepareProfile(ctx);
    await ctx.keys.setDeprecatedSecret(SIM_PROFILE, SIM_SECRET);
  } finally {
    ctx.close();
  }
}

/** People and the first policy version on the profile's records (dual-control seeds), before the desk opens. */
export async function prepareDualControl(home: string, keyStore: MemoryKeyStore, now: number, storage: SimStorage): Promise<ChainRecord[]> {
  const ctx = createAppContext({ home, keyStore });
  const runtime = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger, ...storage.desk(ctx, home, 'prepare').runtimeOptions });
  try {
    const records = await setUpDualControl(runtime, now);
    // A team's desks sign its audit log with a key of their own: with dual control on, Alice (an admin) registers
    // this desk's, as a team's admin does (the desk processes that follow keep the same key in the keychain).
    const seal = (await runtime.auditSeal(SIM_PROFILE)) as { desks?: () => Promise<{ keyId: string; publicKey: string | null; deskName: string | null; thisDesk: boolean; registered: boolean | null }[]> };
    const own = (await seal.desks?.())?.find((d) => d.thisDesk && d.registered === false && d.publicKey);
    if (!own) return records;
    await dualControlService(runtime).registerDesk(SIM_PROFILE, { keyId: own.keyId, publicKey: own.publicKey!, deskName: own.deskName ?? 'sim' }, sessionOf(PREPARER, now));
    return [...(await runtime.controlFor(SIM_PROFILE)).records];
  } finally {
    await runtime.close();
    ctx.close();
  }
}

export function openSimDesk(home: string, keyStore: MemoryKeyStore, model: GatewayModel, generation: number, storage: SimStorage): SimDesk {
  const ctx = createAppContext({ home, keyStore, httpAdapter: model.adapter(generation), fetchTimeoutMs: 15_000 });
  const events = createDeskEvents();
  const stores = storage.desk(ctx, home, `g${generation}`);
  // The simulated person never walks away from the desk: no idle lock.
  const runtime = createDeskRuntime({ ctx, events, log: silentLogger, idleLockMs: () => null, ...stores.runtimeOptions });
  // Bound to the active profile exactly as the IPC handlers of the app are.
  const services = bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk (simulation)', version: 'sim', platform: 'sim', demoAvailable: false }, null), ctx);
  let dead = false;
  return {
    get dead() {
      return dead;
    },
    generation,
    ctx,
    runtime,
    services,
    journal: () => stores.journal(runtime),
    engine: async () => {
      const engine = await runtime.engineFor(SIM_PROFILE);
      if (engine.journal !== (await stores.journal(runtime)).port) throw new Error("the engine is not on this desk's journal");
      return engine;
    },
    crash() {
      dead = true;
      model.disconnect(generation);
      stores.crash(runtime);
    },
    async quit() {
      dead = true;
      await runtime.close();
      ctx.close();
    },
  };
}
