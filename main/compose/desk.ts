// The one place a desk is put together: the desk runtime (main/desk) with both storage back ends, a profile's
// own SQLite journal or, for a profile that points at a team database, the team's stores (main/store/postgres).
// The app (main/index.ts), the CLI (main/cli/index.ts) and `team send` (team-desk.ts here) all start here, so a
// desk behaves the same whichever door it was opened through.
import { createDeskRuntime, type DeskRuntime, type DeskRuntimeOptions } from '../desk/runtime';
import type { TeamStoresOptions } from '../store/postgres/profile-stores';

export interface ComposeOptions extends Omit<DeskRuntimeOptions, 'openTeamStores'> {
  /** How this desk joins a team (its name, lease, budget); the defaults suit the app and the CLI. */
  team?: Omit<TeamStoresOptions, 'ctx' | 'profile' | 'log'>;
}

export function composeDesk(options: ComposeOptions): DeskRuntime {
  const { team, ...runtime } = options;
  // The PostgreSQL side (pg, the team stores) is loaded when a profile on a team database is first opened:
  // a desk of SQLite profiles, and every CLI command on one, never loads it.
  return createDeskRuntime({
    ...runtime,
    openTeamStores: async (profile) => (await import('../store/postgres/profile-stores')).openTeamStores({ ctx: options.ctx, profile, log: options.log, ...team }),
  });
}
