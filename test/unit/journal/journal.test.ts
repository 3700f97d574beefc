import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalError } from '../../../main/journal';
import { JournalVersionError, openJournal, SCHEMA_VERSION } from '../../../main/store/sqlite';
import { payout, tempJournal, type TempJournal } from './helpers';

let t: TempJournal;
afterEach(() => t?.dispose());

describe('journal schema', () => {
  it('opens in WAL mode at the current schema version and reopens without migrating again', () => {
    t = tempJournal();
    expect(t.journal.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(t.journal.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    t.journal.insertPayment('payout', payout('p-1'));
    t.journal.close();
    const again = openJournal(t.file);
    expect(again.getPayment('payout', 'p-1')?.state).toBe('QUEUED');
    again.close();
  });

  it('refuses a journal written by a newer version instead of touching it', () => {
    t = tempJournal();
    t.journal.db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    t.journal.close();
    expect(() => openJournal(t.file)).toThrow(JournalVersionError);
  });

  it('stores money as integers in minor units', () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('p-int', { amountMinor: 9_007_199_254_740_991, currencyCode: 'JPY' }));
    const row = t.journal.db.prepare("SELECT typeof(amount_minor) AS type, amount_minor AS v FROM payments WHERE id = 'p-int'").get() as { type: string; v: number };
    expect(row).toEqual({ type: 'integer', v: 9_007_199_254_740_991 });
  });
});

describe('payment life', () => {
  it('refuses a second payment with the same id, keeping the first unchanged', () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('dup', { amountMinor: 100 }));
    expect(() => t.journal.insertPayment('payout', payout('dup', { amountMinor: 999 }))).toThrow(JournalError);
    expect(t.journal.getPayment('payout', 'dup')?.amountMinor).toBe(100);
    // Payins have their own id space at the gateway.
    expect(t.journal.insertPayment('payin', payout('dup')).kind).toBe('payin');
  });

  it('moves QUEUED → SENDING → ACCEPTED → final and records the timeline with sources', () => {
    let clock = 1_000;
    t = tempJournal({ now: () => clock });
    const j = t.journal;
    j.insertPayment('payout', payout('p-2'));
    clock = 2_000;
    expect(j.markSending('payout', 'p-2')).toBe(true);
    expect(j.getPayment('payout', 'p-2')).toMatchObject({ state: 'SENDING', attempts: 1 });
    clock = 3_000;
    j.recordObservation('payout', 'p-2', { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: 8_000 });
    clock = 4_000;
    expect(j.recordObservation('payout', 'p-2', { status: 'PENDING', source: 'poll', isFinal: false }).changed).toBe(false);
    j.recordObservation('payout', 'p-2', { status: 'PENDING', source: 'poll', isFinal: false }); // identical repeat: skipped
    clock = 5_000;
    const done = j.recordObservation('payout', 'p-2', { status: 'success', source: 'callback', isFinal: true, feeMinor: 150, feeCurrencyCode: 'EUR', raw: { process: { status: 'SUCCESS' } } });
    expect(done.changed).toBe(true);
    expect(j.getPayment('payout', 'p-2')).toMatchObject({ state: 'ACCEPTED', status: 'SUCCESS', isFinal: true, feeMinor: 150, acceptedAt: 3_000, finalAt: 5_000, nextPollAt: null });
    expect(j.markSending('payout', 'p-2')).toBe(false);
    expect(j.timeline('payout', 'p-2').map((e) => [e.status, e.source, e.observedAt])).toEqual([
      ['QUEUED', 'local', 1_000],
      ['PENDING', 'create', 3_000],
      ['PENDING', 'poll', 4_000],
      ['SUCCESS', 'callback', 5_000],
    ]);
    expect(j.timeline('payout', 'p-2')[3]?.raw).toEqual({ process: { status: 'SUCCESS' } });
  });

  it('commits the observations of one turn together: each resolves once stored, a failing one fails alone, order is kept', async () => {
    t = tempJournal();
    const j = t.journal;
    for (const id of ['g-1', 'g-2']) {
      j.insertPayment('payout', payout(id));
      j.markSending('payout', id);
    }
    const first = j.recordObservationSoon('payout', 'g-1', { status: 'PENDING', source: 'create', isFinal: false });
    const unknown = j.recordObservationSoon('payout', 'no-such-id', { status: 'PENDING', source: 'create', isFinal: false });
    const second = j.recordObservationSoon('payout', 'g-2', { status: 'PENDING', source: 'create', isFinal: false });
    const later = j.recordObservationSoon('payout', 'g-1', { status: 'SUCCESS', source: 'callback', isFinal: true });
    // Not stored yet: until the commit a payment keeps its earlier state (a crash here means a GET on restart).
    expect(j.getPayment('payout', 'g-1')?.state).toBe('SENDING');

    await expect(unknown).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(Promise.all([first, second, later])).resolves.toEqual([{ changed: true }, { changed: true }, { changed: true }]);
    expect(j.getPayment('payout', 'g-1')).toMatchObject({ state: 'ACCEPTED', status: 'SUCCESS', isFinal: true });
    expect(j.getPayment('payout', 'g-2')).toMatchObject({ state: 'ACCEPTED', status: 'PENDING', isFinal: false });
    expect(j.timeline('payout', 'g-1').map((e) => [e.status, e.source])).toEqual([
      ['QUEUED', 'local'],
      ['PENDING', 'create'],
      ['SUCCESS', 'callback'],
    ]);
    expect(j.getPayment('payout', 'no-such-id')).toBeUndefined();
  });

  it('stores observations still waiting for their commit when the journal is closed (a quit right after answers arrive)', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('q-1'));
    t.journal.markSending('payout', 'q-1');
    const stored = t.journal.recordObservationSoon('payout', 'q-1', { status: 'PENDING', source: 'create', isFinal: false });
    t.journal.close();
    await expect(stored).resolves.toEqual({ changed: true });
    const again = openJournal(t.file);
    expect(again.getPayment('payout', 'q-1')).toMatchObject({ state: 'ACCEPTED', status: 'PENDING' });
    again.close();
  });

  it('never writes secret-looking fields of a raw response into the journal', () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('p-s'));
    t.journal.recordObservation('payout', 'p-s', { status: 'PENDING', source: 'create', isFinal: false, raw: { token: 'eyJ.secret', nested: { privateKey: 'x', ok: 1 } } });
    const text = (t.journal.db.prepare('SELECT raw_json FROM status_events').all() as { raw_json: string | null }[]).map((r) => r.raw_json ?? '').join('\n');
    expect(text).not.toContain('eyJ.secret');
    expect(text).not.toContain('privateKey');
    expect(text).toContain('"ok":1');
  });

  it('cancels only payouts that were not handed to the gateway yet', () => {
    t = tempJournal();
    const j = t.journal;
    j.insertPayment('payout', payout('a'));
    j.insertPayment('payout', payout('b'));
    j.markSending('payout', 'b');
    expect(j.cancelUnsent('payout', ['a', 'b'])).toBe(1);
    expect(j.getPayment('payout', 'a')).toMatchObject({ state: 'CANCELLED', isFinal: true });
    expect(j.getPayment('payout', 'b')?.state).toBe('SENDING');
  });

  it('keeps a retryable failure queued with its reason, never failed', () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('r'));
    t.journal.markSending('payout', 'r');
    t.journal.markRetrying('payout', 'r', 'gateway unreachable');
    expect(t.journal.getPayment('payout', 'r')).toMatchObject({ state: 'QUEUED', isFinal: false, lastError: 'gateway unreachable', attempts: 1 });
  });
});

describe('batches', () => {
  it('stores a batch and its rows all or nothing, with totals per currency', () => {
    t = tempJournal();
    const j = t.journal;
    const b = j.createBatch({ fileName: 'june.csv', sha256: 'ab'.repeat(32), rows: [payout('b1', { amountMinor: 100 }), payout('b2', { amountMinor: 250 }), payout('b3', { currencyCode: 'JPY', amountMinor: 7 })] });
    expect(b).toMatchObject({ fileName: 'june.csv', rowCount: 3, state: 'RUNNING' });
    expect(b.totals).toEqual([{ currencyCode: 'EUR', amountMinor: 350, count: 2 }, { currencyCode: 'JPY', amountMinor: 7, count: 1 }]);
    expect(j.batchPayments(b.id).map((p) => [p.id, p.rowNumber])).toEqual([['b1', 1], ['b2', 2], ['b3', 3]]);
    expect(j.batchFileSubmitted('ab'.repeat(32))).toBe(true);
    expect(j.batchFileSubmitted('cd'.repeat(32))).toBe(false);

    expect(() => j.createBatch({ fileName: 'again.csv', sha256: 'ee', rows: [payout('new-1'), payout('b2')] })).toThrow(/b2/);
    expect(j.getPayment('payout', 'new-1')).toBeUndefined();
    expect(() => j.createBatch({ fileName: 'rep.csv', sha256: 'ff', rows: [payout('x'), payout('x')] })).toThrow(/repeats/);
  });

  it('counts a batch by state and status', () => {
    t = tempJournal();
    const j = t.journal;
    const b = j.createBatch({ fileName: 'f.csv', sha256: 's', rows: [payout('c1'), payout('c2'), payout('c3')] });
    j.markSending('payout', 'c1');
    j.recordObservation('payout', 'c1', { status: 'SUCCESS', source: 'poll', isFinal: true });
    j.markLocalFinal('payout', 'c2', 'REJECTED', 'amount too large');
    const counts = j.batchCounts(b.id);
    expect(counts).toMatchObject({ total: 3, final: 1, sent: 1, failed: 1, pending: 1, byState: { QUEUED: 1, ACCEPTED: 1, REJECTED: 1, SENDING: 0 } });
    expect(counts.byStatus).toEqual({ QUEUED: 1, SUCCESS: 1, REJECTED: 1 });
  });
});

describe('CSV lookup', () => {
  it('answers existing ids and every account number paid to a known name and to a known e-mail, each on its own', () => {
    let clock = 1;
    t = tempJournal({ now: () => clock++ });
    const j = t.journal;
    j.insertPayment('payout', payout('k1', { accountNumber: 'OLD-1' }));
    j.insertPayment('payout', payout('k2', { accountNumber: 'NEW-2' }));
    j.insertPayment('payout', payout('k3', { accountName: 'Bob Other', emailAddress: 'bob@example.com', accountNumber: 'BOB-3' }));
    expect(j.existingPayoutIds(['k1', 'zz', 'k2'])).toEqual(new Set(['k1', 'k2']));
    expect(j.knownBeneficiaryAccounts([
      // Same name in other case and spacing, new e-mail: found by name.
      { accountName: '  ada LOVELACE ', emailAddress: 'ada@new.example' },
      // Unknown name, known e-mail: found by e-mail.
      { accountName: 'Robert Other', emailAddress: 'BOB@example.com' },
      { accountName: 'Nobody', emailAddress: 'no@example.com' },
    ])).toEqual([
      { accountName: '  ada LOVELACE ', emailAddress: '', accountNumber: 'NEW-2' },
      { accountName: '  ada LOVELACE ', emailAddress: '', accountNumber: 'OLD-1' },
      { accountName: '', emailAddress: 'BOB@example.com', accountNumber: 'BOB-3' },
    ]);
  });
});

describe('balances', () => {
  it('keeps every snapshot as a series and reports the latest per currency', () => {
    let clock = 10;
    t = tempJournal({ now: () => clock });
    const j = t.journal;
    j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 1_000, reservedMinor: 0 }, { currencyCode: 'USD', availableMinor: 5, reservedMinor: 1 }]);
    clock = 20;
    j.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 900, reservedMinor: 100 }]);
    expect(j.balanceSeries('EUR').map((s) => [s.observedAt, s.availableMinor])).toEqual([[10, 1_000], [20, 900]]);
    expect(j.latestBalances().map((s) => [s.currencyCode, s.availableMinor])).toEqual([['EUR', 900], ['USD', 5]]);
  });
});

describe('no secrets in the file', () => {
  it('has no column that could hold a token, key or secret', () => {
    t = tempJournal();
    const db = new Database(t.file, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    const columns = tables.flatMap((tb) => (db.prepare(`PRAGMA table_info("${tb.name}")`).all() as { name: string }[]).map((c) => c.name));
    db.close();
    expect(columns.filter((c) => /token|secret|private|key_pem|password/i.test(c))).toEqual([]);
  });
});

describe('durability', () => {
  it('fsyncs commits that fix new ids even when the base setting is NORMAL, then returns to NORMAL', () => {
    t = tempJournal({ synchronous: 'NORMAL' });
    const seen: number[] = [];
    const j = t.journal;
    const original = j.db.pragma.bind(j.db);
    j.db.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (source.startsWith('synchronous')) seen.push(source === 'synchronous = FULL' ? 2 : 1);
      return original(source, options);
    }) as typeof j.db.pragma;
    j.insertPayment('payout', payout('d1'));
    j.markSending('payout', 'd1');
    expect(seen).toEqual([2, 1]);
    expect(j.db.pragma('synchronous', { simple: true })).toBe(1);
  });
});
