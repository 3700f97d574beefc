// Where one profile's records live, as the desk services see them (the port of main/store): the journal, the
// dual-control records and the payee book, with what seals its audit log. A single desk keeps them in the
// profile's own SQLite journal (store/sqlite/profile-stores.ts); a desk of a team keeps them in the team
// database (store/postgres/profile-stores.ts). The services await every call, so they run unchanged on either.
import type { DualControlRepository } from '../trust/repository';
import type { DeskJournal } from '../journal';
import type { DeskAuditSeal } from '../audit/seal';
import type { KeyStore } from '../keys/key-store';
import type { Logger } from '../log';
import type { PayeeRepository } from '../payees/repository';
import type { RecurringStore } from '../schedules/recurring';
import type { RateLimiter } from '../gateway/rate-limiter';
import type { RegisteredDesk } from '../trust/chain-state';


/** What a seal is opened for. */
export interface SealContext {
  /** The profile: a desk journal's id is pinned in the keychain under it (main/store/sqlite/audit-seal.ts). */
  profileId: string;
  /** A team's log: the desks an admin registered in the verified control chain, null while dual control is off (main/store/postgres/audit-seal.ts). */
  registeredDesks?: () => Promise<readonly RegisteredDesk[] | null>;
}

/** The team database a profile's stores are in (null for a single desk). */
export interface TeamConnectionInfo {
  /** This desk process's id among the team's desks (its claims and lease name it). */
  readonly deskId: string;
  /** The limiter of the merchant's budget shared by the team's desks (every gateway request takes a slot); null only in a bench. */
  readonly limiter: RateLimiter | null;
  /** Where it is (user@host:port/database), for messages. */
  readonly where: string;
}

export interface ProfileStores {
  readonly journal: DeskJournal;
  readonly dualControl: DualControlRepository;
  readonly payees: PayeeRepository;
  /** Recurring payouts' templates and the occurrences recorded of them (main/schedules/recurring.ts). */
  readonly recurring: RecurringStore;
  readonly team: TeamConnectionInfo | null;
  /**
   * Loads what seals the audit log from the keychain; entries are refused until it has (a single desk's
   * journal seals every entry). Rejects when the keychain cannot be read.
   */
  openSeal(keyStore: KeyStore, log: Logger, context: SealContext): Promise<DeskAuditSeal>;
  /** openSeal failed: audit entries are refused with this reason until it is tried again. */
  sealFailed(reason: string): void;
  /** Follows changes other desks make (a team): called with what changed; returns the unsubscribe. */
  onRemoteChange?(listener: (change: RemoteChange) => void): () => void;
  /** Told when the team database is lost and when it is back (a team); returns the unsubscribe. */
  onReachability?(listener: (reachable: boolean, message: string | null) => void): () => void;
  /** A query found the team database gone: it is said once (onReachability), then watched until it is back. */
  reportUnreachable?(message: string): void;
  close(): Promise<void>;
}

/** A change another desk of the team made, as the database announced it (main/store/postgres/profile-stores.ts). */
export type RemoteChange =
  | { kind: 'payment'; paymentKind: 'payout' | 'payin'; id: string; batchId: string | null }
  | { kind: 'batch'; id: string }
  | { kind: 'dual-control' }
  | { kind: 'payees' };
