// A single desk's stores: everything in the profile's own SQLite journal (the port: ../profile-stores.ts).
import { SqliteDualControlRepository } from './dual-control';
import type { Journal } from '.';
import { SqlitePayeeRepository } from './payees';
import { SqliteRecurringStore } from './recurring';
import { AuditSeal } from './audit-seal';
import type { ProfileStores } from '../profile-stores';

/** A single desk's stores: everything in the profile's own SQLite journal. */
export function sqliteStores(journal: Journal): ProfileStores {
  journal.requireAuditKey();
  return {
    journal,
    dualControl: new SqliteDualControlRepository(journal),
    payees: new SqlitePayeeRepository(journal),
    recurring: new SqliteRecurringStore(journal),
    team: null,
    openSeal: (keyStore, log, context) => AuditSeal.open(journal, keyStore, log, context.profileId),
    sealFailed: (reason) => journal.requireAuditKey(reason),
    async close() {
      journal.close();
    },
  };
}
