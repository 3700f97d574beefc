// batches:validateFile through the handler map main/ipc/register.ts registers (argument guard → schema → service),
// with the real batches service, CSV importer and SQLite journal; the runtime around them is a small fake
// (one profile, operators and currencies answered at once, no gateway, no engine). Covers the base64 source,
// which the service checks and decodes in slices (the schema checks only its length), against raw bytes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArgsOf, IpcHandlerMap, ResultOf } from '../../../contract/api';
import { MAX_CSV_BYTES } from '../../../main/csv/types';
import { batchesService } from '../../../main/desk/batches';
import { createFileGrants, type FileGrants } from '../../../main/desk/file-grants';
import { decimalsFrom } from '../../../main/desk/convert';
import type { CurrencyCache } from '../../../main/desk/currency-cache';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { bindProfile } from '../../../main/desk/profile-binding';
import type { Profile } from '../../../main/profiles/profile-schema';
import { openJournal, type Journal } from '../../../main/store/sqlite';
import { SqlitePayeeRepository } from '../../../main/store/sqlite/payees';

const fixture = (name: string): Buffer => readFileSync(fileURLToPath(new URL(`../../fixtures/csv/${name}`, import.meta.url)));

let home = '';
let journal: Journal;
let handlers: IpcHandlerMap;
let journalLookups = 0;
let grants: FileGrants;
/** The same service with a pending budget of a few kilobytes, to see the oldest validations give way. */
let tight: IpcHandlerMap;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'csv-ipc-'));
  journal = openJournal(join(home, 'journal.db'));
  const runtime = {
    journalFor: () => {
      journalLookups++;
      return journal;
    },
    ctx: {
      gatewayFor: () => ({
        paymentOperators: () => Promise.resolve([{ code: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] }]),
      }),
    },
    engineFor: () => Promise.resolve({ refreshBalances: () => Promise.resolve([]) }),
    // The payee book stands in for what its payees were paid to in the bank-details warning (empty here).
    payeesFor: () => new SqlitePayeeRepository(journal),
    // No dual control on this profile: the book is read as stored.
    controlFor: () => Promise.resolve({ enforced: false, problem: null, people: [], policies: [], records: [], chain: null, legacy: null, pin: null, scope: 'csv-ipc' }),
  } as unknown as DeskRuntime;
  const decimals = new Map([['EUR', 2]]);
  const currencies: CurrencyCache = {
    decimalsOf: () => decimalsFrom(decimals),
    currencies: () => Promise.resolve([{ code: 'EUR', decimals: 2 }]),
    freshDecimalsOf: () => Promise.resolve(decimalsFrom(decimals)),
  };
  const profile = { id: 'csv-ipc', maxAmountMinor: null } as Profile;
  grants = createFileGrants();
  const servicesWith = (limits: { maxPendingBytes?: number }) =>
    bindProfile(
      { profiles: {}, keys: {}, payouts: {}, batches: batchesService(runtime, currencies, grants, limits), balances: {}, overview: {}, statements: {}, history: {}, payins: {}, audit: {}, settings: {}, people: {}, approvals: {}, payees: {}, schedules: {}, recurring: {}, app: {} },
      runtime.ctx,
      () => profile,
    );
  handlers = createIpcHandlers(servicesWith({}));
  tight = createIpcHandlers(servicesWith({ maxPendingBytes: 2500 }));
});

afterAll(() => {
  journal?.close();
  rmSync(home, { recursive: true, force: true });
});

async function validate(args: ArgsOf<'batches:validateFile'>): Promise<ResultOf<'batches:validateFile'>> {
  const result = await handlers['batches:validateFile'](args);
  if (!result.ok) throw new Error(`validateFile failed: ${result.error.code} ${result.error.message}`);
  return result.data;
}

describe('batches:validateFile with a base64 source', () => {
  it('gives the same validation as the raw bytes, for a file with a BOM, accents and a row error', async () => {
    const bytes = fixture('excel-de-semicolon.csv');
    const fromBase64 = await validate({ source: { kind: 'base64', fileName: 'de.csv', base64: bytes.toString('base64') } });
    const fromBytes = await validate({ source: { kind: 'bytes', fileName: 'de.csv', bytes: new Uint8Array(bytes) } });
    const { validationId: _a, rows: rowsA, ...a } = fromBase64;
    const { validationId: _b, rows: rowsB, ...b } = fromBytes;
    expect(a).toEqual(b);
    // Generated ids differ between two validations; everything else in the rows is the same.
    expect(rowsA.map(({ idPayout: _id, ...rest }) => rest)).toEqual(rowsB.map(({ idPayout: _id, ...rest }) => rest));
    expect(fromBase64).toMatchObject({
      fileName: 'de.csv',
      encoding: 'utf-8-bom',
      delimiter: ';',
      counts: { rows: 4, valid: 3, invalid: 1, warnings: 0 },
      errors: [{ rowNumber: 5, column: 'Betrag', code: 'AMOUNT_AMBIGUOUS' }],
      funding: [{ currencyCode: 'EUR', count: 3, required: { amount: '1248.05', currencyCode: 'EUR' }, available: null, shortfall: null }],
    });
    expect(rowsA.map((r) => [r.rowNumber, r.money, r.accountName])).toEqual([
      [2, { amount: '1234.56', currencyCode: 'EUR' }, 'Jörg Weiß'],
      [3, { amount: '12.50', currencyCode: 'EUR' }, 'Anna Nowak'],
      [4, { amount: '0.99', currencyCode: 'EUR' }, 'Luc Dubois'],
    ]);
  });

  it('decodes unpadded base64 and base64 spanning many slices', async () => {
    const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress';
    const lines = [header];
    // About 1.6 MB of base64: more than one 1 M-character slice.
    for (let i = 1; i <= 15_000; i++) lines.push(`P-${i},${i}.00,EUR,Name ${i},DE89370400440532013000,EU_SEPA,p${i}@example.com`);
    const csv = Buffer.from(`${lines.join('\r\n')}\r\n`);
    const base64 = csv.toString('base64');
    expect(base64.length).toBeGreaterThan(1024 * 1024);
    expect(base64).toMatch(/=$/); // so that removing the padding below is a real case
    const view = await validate({ source: { kind: 'base64', fileName: 'many.csv', base64: base64.replace(/=+$/, '') } });
    expect(view.counts).toEqual({ rows: 15_000, valid: 15_000, invalid: 0, warnings: 0 });
    expect(view.rows.at(-1)).toMatchObject({ rowNumber: 15_001, idPayout: 'P-15000', money: { amount: '15000.00', currencyCode: 'EUR' } });
  });

  it('refuses text that is not base64 as an invalid argument, before any other work', async () => {
    const before = journalLookups;
    for (const base64 of ['aWQsYW1vdW50Cg==!', 'aWQs YW1v', 'aWQs-W1v', 'aW==QsYW']) {
      const result = await handlers['batches:validateFile']({ source: { kind: 'base64', fileName: 'x.csv', base64 } });
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'INVALID_ARGUMENT',
          message: 'batches:validateFile: invalid arguments',
          retryable: false,
          issues: [{ field: 'source.base64', code: 'INVALID_FORMAT', message: 'is not base64' }],
        },
      });
    }
    expect(journalLookups).toBe(before);
  });

  it('refuses base64 longer than a 50 MB file in the schema, from its length alone', async () => {
    const base64 = 'A'.repeat(Math.ceil(MAX_CSV_BYTES / 3) * 4 + 4);
    const result = await handlers['batches:validateFile']({ source: { kind: 'base64', fileName: 'big.csv', base64 } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', issues: [{ field: 'source.base64', message: 'file is larger than 50 MB' }] },
    });
  });
});

const csvOf = (rows: number, from = 1): string => {
  const lines = ['idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress'];
  for (let i = from; i < from + rows; i++) lines.push(`P-${i},${i}.00,EUR,Name ${i},DE89370400440532013000,EU_SEPA,p${i}@example.com`);
  return `${lines.join('\r\n')}\r\n`;
};

describe('batches:validateFile reads a path only when main granted it', () => {
  it('validates a file main chose or the user dropped, through its token', async () => {
    const path = join(home, 'granted.csv');
    writeFileSync(path, csvOf(3));
    const grant = await grants.grant(path, 'csv');
    const view = await validate({ source: { kind: 'granted', token: grant.token } });
    expect(view).toMatchObject({ fileName: 'granted.csv', counts: { rows: 3, valid: 3, invalid: 0, warnings: 0 } });
  });

  it('refuses a path from the page in the schema, whatever its extension', async () => {
    const path = join(home, 'granted.csv');
    const result = await handlers['batches:validateFile']({ source: { kind: 'path', path } });
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('refuses a token main never issued, and a key file\'s token', async () => {
    const unknown = await handlers['batches:validateFile']({ source: { kind: 'granted', token: '7d1c2a4e-1111-4222-8333-944445555666' } });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'FILE_NOT_GRANTED', message: expect.stringContaining('payout CSV') } });
    const keyPath = join(home, 'signing.pem');
    writeFileSync(keyPath, '-----BEGIN PRIVATE KEY-----\n');
    const keyGrant = await grants.grant(keyPath, 'key');
    const asCsv = await handlers['batches:validateFile']({ source: { kind: 'granted', token: keyGrant.token } });
    expect(asCsv).toMatchObject({ ok: false, error: { code: 'FILE_NOT_GRANTED' } });
  });
});

describe('validations waiting for submission are bounded in bytes', () => {
  it('lets the oldest give way when the files waiting pass the budget, and says why when it is submitted', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const bytes = new TextEncoder().encode(csvOf(12, n * 12 + 1));
      expect(bytes.byteLength).toBeGreaterThan(900); // three of them are more than the 2,500-byte budget
      const result = await tight['batches:validateFile']({ source: { kind: 'bytes', fileName: `part-${n}.csv`, bytes } });
      if (!result.ok) throw new Error(result.error.message);
      ids.push(result.data.validationId);
    }
    const oldest = await tight['batches:submit']({ validationId: ids[0], confirmedWarningRows: [] });
    expect(oldest).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_EXPIRED', message: expect.stringMatching(/set aside to make room for newer ones .*nothing was sent/) },
    });
    // The newest two are still waiting: their submission goes on past the validation lookup (to the fake engine).
    for (const validationId of ids.slice(1)) {
      const kept = await tight['batches:submit']({ validationId, confirmedWarningRows: [] });
      expect(kept.ok ? 'submitted' : kept.error.code).not.toBe('VALIDATION_EXPIRED');
    }
  });
});
