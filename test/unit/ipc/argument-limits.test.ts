// One limit for lists at the IPC boundary: the structural guard and the schemas share MAX_LIST_ITEMS,
// so retrying or confirming the rows of a batch at the 100,000-row limit is let through, and one more
// is refused with a message that says what the limit is.
import { describe, expect, it } from 'vitest';
import { guardArgument, MAX_LIST_ITEMS } from '../../../main/ipc/argument-guard';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { recordingServices } from './fake-services';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `P-${i}`);
const rows = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('list arguments at the limit', () => {
  it('the limit is the 100,000 rows a batch may hold', () => {
    expect(MAX_LIST_ITEMS).toBe(100_000);
  });

  it('batches:retryFailed takes exactly 100,000 payout ids', async () => {
    const { services, calls } = recordingServices();
    const result = await createIpcHandlers(services)['batches:retryFailed']({ batchId: 'b-1', idPayouts: ids(100_000) });
    expect(result).toEqual({ ok: true, data: { reached: 'batches:retryFailed' } });
    expect((calls[0]?.args as { idPayouts: string[] }).idPayouts).toHaveLength(100_000);
  });

  it('batches:retryFailed refuses 100,001 ids, saying how many are allowed', async () => {
    const { services, calls } = recordingServices();
    const result = await createIpcHandlers(services)['batches:retryFailed']({ batchId: 'b-1', idPayouts: ids(100_001) });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', issues: [{ field: 'idPayouts', message: 'at most 100,000 items' }] } });
    expect(calls).toEqual([]);
  });

  it('batches:submit confirms every row of a 100,000-row file plus row 0 (the file itself), and refuses more', async () => {
    const { services, calls } = recordingServices();
    const handle = createIpcHandlers(services)['batches:submit'];
    const validationId = '7d1c2a4e-1111-4222-8333-944445555666';
    expect(await handle({ validationId, confirmedWarningRows: rows(100_001) })).toEqual({ ok: true, data: { reached: 'batches:submit' } });
    const over = await handle({ validationId, confirmedWarningRows: rows(100_002) });
    expect(over).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT', issues: [{ field: 'confirmedWarningRows', message: 'at most 100,001 items' }] } });
    expect(calls).toHaveLength(1);
  });

  it('the guard counts a list at the limit with room for the object around it, and names the limit past it', () => {
    expect(guardArgument({ batchId: 'b-1', idPayouts: ids(MAX_LIST_ITEMS) })).toEqual({ ok: true });
    const verdict = guardArgument({ batchId: 'b-1', idPayouts: ids(MAX_LIST_ITEMS * 2) });
    expect(verdict).toMatchObject({ ok: false, reason: 'too many values (a list holds at most 100,000 items)' });
  });
});
