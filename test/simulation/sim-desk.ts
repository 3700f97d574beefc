// One run of the desk "process" in the simulation, on the production wiring: the app context, the
// DeskRuntime and the desk services the IPC handlers and the CLI use, over real SQLite files in a
// data folder that survives crashes. Only the network is replaced (the gateway model's adapter).
import { createAppContext, type AppContext } from '../../main/context';
import type { PayoutEngine } from '../../main/engine';
import { createDeskServices } from '../../main/desk';
import { createDeskEvents } from '../../main/desk/events';
import { bindActiveProfile } from '../../main/desk/profile-binding';
import { createDeskRuntime, type DeskRuntime } from '../../main/desk/runtime';
import type { DeskServices } from '../../main/desk/services';
import { openJournal, type Journal } from '../../main/journal';
import { journalPath } from '../../main/desk/profile-engine';
import type { MemoryKeyStore } from '../../main/keys/key-store';
import { silentLogger } from '../../main/log';
import { setUpDualControl } from './dual-control';
import type { GatewayModel } from './gateway-model';

export const SIM_PROFILE = 'sim';
const SIM_SECRET = 'simulated-merchant-secret';

export interface SimDesk {
  readonly generation: number;
  readonly ctx: AppContext;
  readonly runtime: DeskRuntime;
  readonly services: DeskServices;
  /** The profile's journal, as this desk process has it open. */
  journal(): Journal;
  /** Crashed or quit: this process does nothing more. */
  readonly dead: boolean;
  /** The started engine (started on first use, like the app does at launch). */
  engine(): Promise<PayoutEngine<Journal>>;
  /** An abrupt end: nothing more is written, no answer reaches it, nothing is flushed. */
  crash(): void;
  /** The user quits: the runtime closes as the app does. */
  quit(): Promise<void>;
}

/** Creates the data folder's profile once (a merchant secret in the keychain; no key files to read). */
export async function prepareHome(home: string, keyStore: MemoryKeyStore): Promise<void> {
  const ctx = createAppContext({ home, keyStore });
  try {
    ctx.profiles.add({ id: SIM_PROFILE, name: 'Simulation', baseUrl: 'https://gateway.sim.invalid', merchantCode: 'SIM-MERCHANT', useDeprecatedSecret: true });
    ctx.profiles.setCurrent(SIM_PROFILE);
    await ctx.keys.setDeprecatedSecret(SIM_PROFILE, SIM_SECRET);
  } finally {
    ctx.close();
  }
}

/** People and the first policy version on the profile's journal (dual-control seeds), before the desk opens. */
export async function prepareDualControl(home: string, keyStore: MemoryKeyStore, now: number): Promise<void> {
  const ctx = createAppContext({ home, keyStore });
  const runtime = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  try {
    await setUpDualControl(runtime, now);
  } finally {
    await runtime.close();
    ctx.close();
  }
}

export function openSimDesk(home: string, keyStore: MemoryKeyStore, model: GatewayModel, generation: number): SimDesk {
  const ctx = createAppContext({ home, keyStore, httpAdapter: model.adapter(generation), fetchTimeoutMs: 15_000 });
  const events = createDeskEvents();
  // The simulated person never walks away from the desk: no idle lock.
  // The journal file as this process opens it (its invariants read it directly).
  let journal: Journal | undefined;
  const runtime = createDeskRuntime({
    ctx, events, log: silentLogger, idleLockMs: () => null,
    openJournal: (profileId) => (journal = openJournal(journalPath(home, profileId))),
  });
  const opened = (): Journal => {
    if (!journal) throw new Error('the desk has not opened its journal yet');
    return journal;
  };
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
    journal: opened,
    engine: async () => {
      const engine = await runtime.engineFor(SIM_PROFILE);
      if (engine.journal !== opened()) throw new Error("the engine is not on this desk's journal");
      return engine as PayoutEngine<Journal>;
    },
    crash() {
      dead = true;
      model.disconnect(generation);
      // Closing the connection directly drops what close() would flush: a crash stores nothing more.
      if (journal?.db.open) journal.db.close();
      // Its timers would keep firing into a closed journal; a dead process has none.
      void runtime.reset(SIM_PROFILE).catch(() => undefined);
    },
    async quit() {
      dead = true;
      await runtime.close();
      ctx.close();
    },
  };
}
