// Another desk of the team changed something (main/store/postgres/change-feed.ts): the same events this desk's own
// engine raises are emitted for it, read from the shared journal, so the screens refresh as they do for
// this desk's work (the status of a payout another desk sent, a batch it paused, an approval it signed).
// Nothing here asks the gateway: the desk that did the work already did.
import { batchProgress } from '../engine';
import type { BatchLiveState } from '../../contract/state-words';
import type { Logger } from '../log';
import type { DeskEvents } from './events';
import type { ProfileStores, RemoteChange } from '../store/profile-stores';

/** A batch's progress is read again at most this often while another desk works through it. */
export const BATCH_PROGRESS_EVERY_MS = 250;

export interface RemoteChangeFollower {
  stop(): void;
}

export function followRemoteChanges(deps: {
  profileId: string;
  stores: ProfileStores;
  events: DeskEvents;
  log: Logger;
  /** Whether this desk's own engine is sending the batch now (the batch's word for its state). */
  live: (batchId: string) => BatchLiveState | null;
  /** A sender desk's engine sends what another desk stored or resumed (PayoutEngine.takeUp). */
  takeUp: (kind: 'batch' | 'payout', id: string) => Promise<void>;
}): RemoteChangeFollower {
  const { profileId, stores, events, log } = deps;
  const journal = stores.journal;
  /** Batches whose progress is due to be read, with the timer that reads them. */
  const due = new Map<string, NodeJS.Timeout>();
  let stopped = false;

  const readProgress = (batchId: string): void => {
    if (due.has(batchId) || stopped) return;
    const timer = setTimeout(() => {
      due.delete(batchId);
      if (stopped) return;
      batchProgress(journal, batchId, 0, deps.live(batchId)).then(
        ({ counts: _counts, ...progress }) => events.emit('batchProgress', progress),
        (error: unknown) => log.warn('could not read the progress of a batch another desk changed', { profileId, batchId, error }),
      );
    }, BATCH_PROGRESS_EVERY_MS);
    timer.unref();
    due.set(batchId, timer);
  };

  const onChange = async (change: RemoteChange): Promise<void> => {
    switch (change.kind) {
      case 'payment': {
        const p = await journal.getPayment(change.paymentKind, change.id);
        if (!p) return;
        const last = (await journal.timeline(change.paymentKind, change.id)).at(-1);
        events.emit('paymentStatusChanged', {
          kind: p.kind, id: p.id, status: p.status, previousStatus: null, final: p.isFinal,
          source: last?.source ?? 'local', observedAt: new Date(last?.observedAt ?? p.updatedAt).toISOString(), batchId: p.batchId,
        });
        if (p.batchId) readProgress(p.batchId);
        else if (p.kind === 'payout') await deps.takeUp('payout', p.id);
        return;
      }
      case 'batch':
        readProgress(change.id);
        await deps.takeUp('batch', change.id);
        return;
      case 'dual-control':
      case 'payees':
        events.emit('approvalsChanged', { profileId, subject: null });
        return;
    }
  };

  const unsubscribe = stores.onRemoteChange?.((change) => {
    if (!stopped) onChange(change).catch((error: unknown) => log.warn('could not read a change another desk made', { profileId, change, error }));
  });
  return {
    stop() {
      stopped = true;
      unsubscribe?.();
      for (const timer of due.values()) clearTimeout(timer);
      due.clear();
    },
  };
}
