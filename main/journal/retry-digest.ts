// The SHA-256 a retry batch is stored with (it has no file of its own): the batch it retries and, in order, the
// attempts retried and the new ids. One formula for both journals and for the engine, which signs a retry batch
// (its preparer's signature covers this) before it is stored.
import { createHash } from 'node:crypto';

export function retryBatchSha256(sourceBatchId: string, rows: readonly { retryOf?: string | undefined; id: string }[]): string {
  return createHash('sha256').update(`retry:${sourceBatchId}:${rows.map((r) => r.retryOf).join(',')}:${rows.map((r) => r.id).join(',')}`).digest('hex');
}
