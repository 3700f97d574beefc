// The journal's port and records: what the engine, the gate and the desk services need from any journal. The two
// adapters live in main/store (sqlite/ for a single desk's file, postgres/ for a team database).
export { JournalError, UNSENT_STATES, totalsOf } from './shared';
export type { Awaitable, DeskJournal, DuePoll, JournalPort, LikePayout, LikePayoutKey, LikePayoutSkip, ManifestRow, SendClaim } from './port';
export * from './types';
