export { PayoutEngine, EngineError, type PayoutEngineOptions, type BatchSubmission, type EngineErrorCode } from './payout-engine';
export { EngineHaltError, PayoutSender, payoutRequestOf, type SendOutcome } from './payout-sender';
export { StatusPoller } from './status-poller';
export { CallbackListener, newCallbackPathSecret, publicCallbackUrl, type CallbackListenerState } from './callback-listener';
export { BalanceWatcher } from './balance-watcher';
export { batchProgress } from './batch-runner';
export { backoffDelay, pollInterval, DEFAULT_BACKOFF, type BackoffOptions } from './timing';
export type * from './events';
export type * from './ports';
