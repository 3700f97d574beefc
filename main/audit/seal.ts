// The port of an audit log's seal: what a desk's own journal (store/sqlite/audit-seal.ts) and a team's log
// (store/postgres/audit-seal.ts) offer the desk, so the Audit screen and the CLI verify either the same way.
import type { AuditVerifyResult } from './chain';

/** What keeps a profile's audit log honest: verify() walks it with what this desk's keychain holds. */
export interface DeskAuditSeal {
  verify(): Promise<AuditVerifyResult>;
  /** Waits until the keychain's anchor names the newest entry written so far. */
  flush(): Promise<void>;
  close(): void;
}
