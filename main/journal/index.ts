export { Journal, JournalError, openJournal, UNSENT_STATES, type BatchCounts, type BatchInput, type JournalOptions } from './journal';
export {
  verifyAudit, canonicalJson, auditKeyId, AuditKeyError, GENESIS_HASH,
  type AuditAnchor, type AuditKey, type AuditProblem, type AuditProblemCode, type AuditTrust, type AuditVerifyResult, type NewAuditEntry,
} from './audit-log';
export { deskActor } from './actor';
export { SCHEMA_VERSION, JournalVersionError } from './migrations';
export { MAX_PAGE_SIZE } from './history';
export type { Awaitable, DeskJournal, JournalPort, ManifestRow, SendClaim } from './port';
export * from './types';
