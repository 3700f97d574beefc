// Events the engine emits; the IPC layer forwards them to the renderer, the CLI prints them.
import type { StatusSource } from '../domain/status';
import type { BatchCounts } from '../journal';
import type { ScheduleRecord } from '../schedules/schedule';
import type { StoredBatchState, PaymentKind } from '../journal/types';

export interface StatusChangedEvent {
  kind: PaymentKind;
  id: string;
  status: string;
  previousStatus: string | null;
  final: boolean;
  source: StatusSource;
  observedAt: number;
  batchId: string | null;
}

export interface BatchProgressEvent {
  batchId: string;
  state: StoredBatchState;
  total: number;
  counts: BatchCounts;
  /** Accepted by the gateway so far. */
  sent: number;
  /** Final: every row not still pending (final + pending = total). */
  done: number;
  failed: number;
  pending: number;
  /** Creates accepted per second over the last few seconds of this run. */
  ratePerSec: number;
  /** Time left to send the rest at the current rate; null when unknown. */
  etaSeconds: number | null;
  /** What a person reads for the state (contract/state-words.ts): SENT, WAITING, STOPPED… */
  stateWord: string;
  /** Why it stopped or waits, when it did; else null. */
  stateReason: string | null;
}

export interface ConnectionEvent {
  /** 'unknown' until the first request of this engine has an answer (or fails to reach the gateway). */
  state: 'unknown' | 'online' | 'offline';
  /** Why the gateway is considered offline (no secrets: the GatewayError message). */
  message: string | null;
  at: number;
}

export interface EngineEvents {
  'status-changed': [StatusChangedEvent];
  'batch-progress': [BatchProgressEvent];
  connection: [ConnectionEvent];
  /** A scheduled subject this desk released at its time (it is sent through the approval gate next). */
  'schedule-released': [ScheduleRecord];
  /** A scheduled subject found past its late window: a person confirms its release (or moves or cancels it). */
  'schedule-late': [ScheduleRecord];
  /** Something went wrong in the background that is not tied to one payment (a bug, a disk error). */
  'background-error': [Error];
}
