export { Journal, JournalError, openJournal, UNSENT_STATES, type BatchCounts, type BatchInput, type JournalOptions } from './journal';
export { verifyAudit, canonicalJson, GENESIS_HASH, type AuditProblem, type AuditVerifyResult, type NewAuditEntry } from './audit-log';
export { SCHEMA_VERSION, JournalVersionError } from './migrations';
export { MAX_PAGE_SIZE } from './history';
export * from './types';
