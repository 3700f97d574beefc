// A single desk's stores in the profile's own SQLite file: the journal, its migrations, and (profile-stores.ts)
// the dual-control records, the payee book and the audit seal beside it.
export { Journal, openJournal, type JournalOptions } from './journal';
export { SCHEMA_VERSION, JournalVersionError } from './migrations';
export { MAX_PAGE_SIZE } from '../../../contract/limits';
