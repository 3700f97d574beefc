// The CLI's payment commands against the sandbox, over the same desk services as the UI: payouts
// create (--wait) / get / list, batch submit / status / export / resume / cancel, history export,
// audit verify (and a tampered journal), payins options / create / get / account-data / share-token.
import axios from 'axios';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchView, Page, HistoryRow, OverviewView, StatementView, PaymentDetail, PayinView } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { journalPath } from '../../../main/desk/profile-engine';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-pay-'));
const keyStore = new MemoryKeyStore();
const PROFILE = 'sandbox-eu';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}

const payout = ['--amount', '1250.50', '--currency', 'EUR', '--account-name', 'Jane Doe', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'jane@example.com'];
const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference';
const csvFile = (name: string, rows: string[]) => {
  const path = join(home, name);
  writeFileSync(path, `${[header, ...rows].join('\r\n')}\r\n`);
  return path;
};
const validRows = [
  ',10.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,ann@example.com,,INV-1',
  ',20.50,EUR,Bob Two,DE02100500000054540402,EU_SEPA,BANK_TRANSFER,bob@example.com,,INV-2',
  ',7.25,USD,Cy Three,US123456789,US_ACH,BANK_TRANSFER,cy@example.com,,INV-3',
];
const readCsv = (text: string) => parse(text, { bom: true, columns: true, skip_empty_lines: true }) as Record<string, string>[];

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
});
let sandboxClosed = false;
afterAll(async () => {
  if (!sandboxClosed) await sandbox.close();
});

describe('payouts', () => {
  let id = '';

  it('creates a payout, sends it once and waits for SUCCESS', async () => {
    const r = await cli('payouts', 'create', ...payout, '--reference', 'INV-42', '--wait', '--timeout', '30');
    expect(r).toMatchObject({ code: 0, err: '' });
    id = /Payout (\S+): ACCEPTED \(the gateway has it\)/.exec(r.out)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.out).toContain('1250.50 EUR to Jane Doe, DE89370400440532013000');
    expect(r.out).toMatch(/Final: SUCCESS, fee 6\.50 EUR/);
    expect(sandbox.state().createAttempts.payouts[id]).toBe(1);
  });

  it('counts the paid payout in the overview: today and the last seven days, its fee, no failure', async () => {
    const view = await json<OverviewView>('overview');
    expect(view.currencies.map((c) => c.currencyCode)).toContain('EUR');
    const eur = view.currencies.find((c) => c.currencyCode === 'EUR')!;
    for (const period of [eur.today, eur.lastSevenDays]) {
      expect(period).toMatchObject({
        sent: { count: 1, amount: { amount: '1250.50', currencyCode: 'EUR' } },
        succeeded: { count: 1 },
        failed: { count: 0 },
        inFlight: { count: 0 },
        fees: { amount: '6.50', currencyCode: 'EUR' },
        failureRatePercent: '0.0',
        returnRatePercent: '0.0',
      });
    }
    expect(eur.sentByDay.at(-1)).toEqual({ count: 1, amount: { amount: '1250.50', currencyCode: 'EUR' } });
    const r = await cli('overview');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^EUR\s+today\s+1 \(1250\.50\)\s+0\s+0\s+0\s+6\.50\s+0\.0 %\s+0\.0 %/m);
  });

  it('makes this month\'s statement from the gateway\'s balance now, says where it starts, and refuses a month that does not exist', async () => {
    const view = await json<StatementView>('statement', '--currency', 'EUR');
    const eur = view.currencies.find((c) => c.currencyCode === 'EUR')!;
    expect(eur).toMatchObject({ closing: { source: 'gateway' }, reconciled: true, difference: { amount: '0.00' } });
    expect(eur.paid.count).toBeGreaterThanOrEqual(1);
    // This desk read no balance before: the statement says it starts at its first read (the one made for it).
    expect(eur.lines.map((l) => l.kind)).toContain('firstRead');
    const r = await cli('statement', '--currency', 'EUR');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^EUR {2}reconciles$/m);
    expect(r.out).toMatch(/Closing balance \(read from the gateway now\)/);
    expect((await cli('statement', '--month', '2026-13')).err).toMatch(/--month must be a month such as 2026-11/);
  });

  it('writes the statement as CSV, camt.053 and PDF files, each audited with its SHA-256; a PDF only to a file', async () => {
    expect((await cli('statement', '--format', 'pdf')).err).toMatch(/A PDF is written to a file: give --out statement\.pdf/);
    expect((await cli('statement', '--out', join(home, 'x.csv'))).err).toMatch(/give --format csv, pdf or camt053 with it/);
    expect((await cli('statement', '--format', 'ods')).err).toMatch(/--format must be one of csv, pdf, camt053/);
    const csv = await cli('statement', '--format', 'csv', '--currency', 'EUR');
    expect(csv.code).toBe(0);
    expect(csv.out.split('\r\n')[0]).toBe('currencyCode,section,description,count,debit,credit,balance,at,paymentId');
    expect(csv.out).toMatch(/^EUR,movement,Payout paid,,1250\.50,,,/m);
    const files: Record<string, Buffer> = {};
    for (const [format, name] of [['camt053', 'statement.xml'], ['pdf', 'statement.pdf']] as const) {
      const path = join(home, name);
      const r = await cli('statement', '--format', format, '--currency', 'EUR', '--out', path);
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(r.out).toContain(`Written to ${path}`);
      files[format] = readFileSync(path);
    }
    expect(files.camt053!.toString('utf8')).toContain('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">');
    expect(files.pdf!.subarray(0, 5).toString()).toBe('%PDF-');
    const audit = await json<{ items: { action: string; details: Record<string, unknown> }[] }>('audit', 'list');
    const exported = audit.items.filter((e) => e.action === 'statement.exported');
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(exported.map((e) => e.details.format).sort()).toEqual(['camt053', 'csv', 'pdf']);
    expect(exported.find((e) => e.details.format === 'pdf')!.details.sha256).toBe(sha(files.pdf!));
    expect(exported.find((e) => e.details.format === 'camt053')!.details.sha256).toBe(sha(files.camt053!));
  });

  it('shows the journal record and its status timeline', async () => {
    const r = await cli('payouts', 'get', id);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Payout ${id}  SUCCESS (final)`);
    // The same sentence as the desk's detail panel (contract/state-words.ts), not "local state ACCEPTED".
    expect(r.out).toContain('  State:      Sent — the gateway reports SUCCESS\n');
    expect(r.out).toMatch(/Status history:\n.*QUEUED\s+local\n.*ACCEPTED\s+create\n(.*(PENDING|PROCESSING)\s+poll\n)*.*SUCCESS\s+poll\n$/);
    const detail = await json<PaymentDetail>('payouts', 'get', id, '--refresh');
    expect(detail).toMatchObject({ id, status: 'SUCCESS', final: true, money: { amount: '1250.50', currencyCode: 'EUR' }, fee: { amount: '6.50', currencyCode: 'EUR' } });
    expect(detail.events.map((e) => e.status).slice(0, 2)).toEqual(['QUEUED', 'ACCEPTED']);
    expect(detail.events.at(-1)).toMatchObject({ status: 'SUCCESS', source: 'poll' });
    expect((await cli('payouts', 'get', 'no-such-id')).err).toMatch(/^error: No payout with id no-such-id/);
  });

  it('never sends the same --id twice, and refuses an id reused for another payment', async () => {
    const again = await cli('payouts', 'create', ...payout, '--id', id);
    expect(again.code).toBe(0);
    expect(again.out).toContain('is already in the journal; it is not sent a second time');
    expect(sandbox.state().createAttempts.payouts[id]).toBe(1);
    const other = await cli('payouts', 'create', ...payout.map((a) => (a === '1250.50' ? '99.00' : a)), '--id', id);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/already in the journal with other details/);
    expect((await cli('payouts', 'create', ...payout, '--id', '')).err).toMatch(/^error: idPayout: must be 1-64 characters/);
  });

  it('reports a failed payout with its reason and a non-zero exit code', async () => {
    const args = payout.map((a) => (a === 'DE89370400440532013000' ? 'DE89370400440532010000' : a));
    const r = await cli('--json', 'payouts', 'create', ...args, '--id', 'cli-failing-1', '--wait', '--timeout', '30');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ id: 'cli-failing-1', status: 'FAILED', final: true, failureReason: 'ACCOUNT_REJECTED' });
  });

  it('saves remittance advice for the paid payout, and refuses it for the failed one', async () => {
    const out = join(home, 'advice.pdf');
    const r = await cli('payouts', 'remittance', id, '--out', out);
    expect(r).toMatchObject({ code: 0, err: '' });
    const text = execFileSync('pdftotext', ['-layout', out, '-'], { encoding: 'utf8' });
    expect(text).toMatch(/Paid to\s+Jane Doe/);
    expect(text).toMatch(new RegExp(`${id}\\s+\\S+\\s+1250\\.50 EUR`));
    const refused = await cli('payouts', 'remittance', 'cli-failing-1', '--out', join(home, 'no.pdf'));
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^error: Payout cli-failing-1 is FAILED, not paid: advice is given once the gateway reports SUCCESS/);
    expect(existsSync(join(home, 'no.pdf'))).toBe(false);
  });

  it('refuses a bad amount with a specific message and sends nothing', async () => {
    const before = sandbox.state().payouts.length;
    const precision = await cli('payouts', 'create', ...payout.map((a) => (a === '1250.50' ? '12.345' : a)));
    expect(precision.code).toBe(1);
    expect(precision.err).toMatch(/^error: The payout is not valid; nothing was sent\. amount: "12\.345" has 3 decimals; the currency allows at most 2/);
    const text = await cli('--json', 'payouts', 'create', ...payout.map((a) => (a === '1250.50' ? '12,50' : a)));
    expect(text.code).toBe(1);
    expect(JSON.parse(text.err)).toMatchObject({ error: { code: 'VALIDATION' } });
    expect(text.err).toMatch(/is not a plain decimal number/);
    expect((await cli('payouts', 'create', ...payout.map((a) => (a === '1250.50' ? '0' : a)))).err).toMatch(/amount must be greater than zero/);
    expect((await cli('payouts', 'create', ...payout.map((a) => (a === 'EUR' ? 'EURO' : a)))).code).toBe(2);
    expect(sandbox.state().payouts.length).toBe(before);
  });

  it('lists payouts newest first with filters', async () => {
    const all = await json<Page<HistoryRow>>('payouts', 'list');
    expect(all.items.map((r) => r.id)).toEqual(['cli-failing-1', id]);
    expect((await json<Page<HistoryRow>>('payouts', 'list', '--status', 'success')).items.map((r) => r.id)).toEqual([id]);
    expect((await json<Page<HistoryRow>>('payouts', 'list', '--status', 'FAILED', '--currency', 'eur')).items.map((r) => r.id)).toEqual(['cli-failing-1']);
    expect((await json<Page<HistoryRow>>('payouts', 'list', '--currency', 'USD')).items).toEqual([]);
    expect((await json<Page<HistoryRow>>('payouts', 'list', '--search', 'INV-42')).items.map((r) => r.id)).toEqual([id]);
    expect((await json<Page<HistoryRow>>('payouts', 'list', '--to', '2000-01-01')).items).toEqual([]);
    expect((await json<Page<HistoryRow>>('payouts', 'list', '--from', new Date(Date.now() - 3_600_000).toISOString(), '--limit', '1')).items).toHaveLength(1);
    const human = await cli('payouts', 'list');
    expect(human.out).toMatch(/^CREATED\s+ID\s+STATUS\s+AMOUNT\s+CUR\s+ACCOUNT\s+BATCH\n/);
    expect(human.out).toContain('2 of 2 shown');
    expect((await cli('payouts', 'list', '--from', 'yesterday')).code).toBe(2);
    // --profile picks another profile's journal for one command; the current profile stays as it is.
    expect((await cli('profiles', 'add', '--name', 'Other', '--base-url', sandbox.url, '--merchant-code', 'OTHER')).code).toBe(0);
    expect((await json<Page<HistoryRow>>('--profile', 'other', 'payouts', 'list')).items).toEqual([]);
    expect((await json<Page<HistoryRow>>('payouts', 'list')).total).toBe(2);
  });
});

describe('batches', () => {
  let batchId = '';
  const file = csvFile('payouts.csv', validRows);

  it('submits a valid CSV and follows it until every row is final', async () => {
    const r = await cli('batch', 'submit', file, '--timeout', '60');
    expect(r).toMatchObject({ code: 0, err: '' });
    batchId = /Batch (\S+) submitted: 3 payouts/.exec(r.out)?.[1] ?? '';
    expect(batchId).not.toBe('');
    expect(r.out).toMatch(/RUNNING\s+sent \d\/3/);
    expect(r.out).toContain('Done: all 3 payouts final and successful.');
    expect(r.out).toMatch(/EUR\s+30\.50\s+\(2 payouts\)/);
  });

  it('shows status counts and exports every row final', async () => {
    const status = await json<BatchView & { counts: { byStatus: Record<string, number> }; rows: unknown[] }>('batch', 'status', batchId, '--rows');
    expect(status.progress).toMatchObject({ state: 'COMPLETED', total: 3, done: 3, failed: 0, pending: 0 });
    expect(status.counts.byStatus).toEqual({ SUCCESS: 3 });
    expect(status.rows).toHaveLength(3);
    expect((await cli('batch', 'status', batchId)).out).toContain('by status: SUCCESS 3');

    const out = join(home, 'results.csv');
    expect((await cli('batch', 'export', batchId, '--out', out)).code).toBe(0);
    const rows = readCsv(readFileSync(out, 'utf8'));
    expect(rows.map((x) => [x.amount, x.currencyCode, x.status])).toEqual([['10.00', 'EUR', 'SUCCESS'], ['20.50', 'EUR', 'SUCCESS'], ['7.25', 'USD', 'SUCCESS']]);
    expect(rows.every((x) => x.processedAt !== '' && x.fee !== '')).toBe(true);
    expect((await cli('batch', 'export', batchId, '--out', out)).err).toMatch(/exists; use --force/);
    expect(readCsv((await cli('batch', 'export', batchId)).out)).toHaveLength(3);
  });

  it('saves remittance advice for the batch: a page per payee, each payout with its reference', async () => {
    const out = join(home, 'batch-advice.pdf');
    const r = await cli('batch', 'remittance', batchId, '--out', out);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain('Advice for 3 payees, 3 paid payouts');
    const pages = execFileSync('pdfinfo', [out], { encoding: 'utf8' });
    expect(pages).toMatch(/^Pages:\s+3$/m);
    const text = execFileSync('pdftotext', ['-layout', out, '-'], { encoding: 'utf8' });
    expect(text).toMatch(/Payment run\s+payouts\.csv/);
    expect(text).toMatch(/INV-1\s+10\.00 EUR/);
    expect(text).toMatch(/Paid to\s+Cy Three <cy@example\.com>/);
  });

  it('refuses a CSV with an invalid row and sends nothing', async () => {
    const before = sandbox.state().payouts.length;
    const bad = csvFile('bad.csv', [validRows[0]!.replace('Ann One', 'Ann Other'), ',abc,EUR,Dee Four,DE75512108001245126199,EU_SEPA,BANK_TRANSFER,dee@example.com,,']);
    const r = await cli('batch', 'submit', bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/row 3, column "amount": AMOUNT_FORMAT/);
    expect(r.err).toMatch(/error: bad\.csv: 1 of 2 rows is invalid \(row 3: AMOUNT_FORMAT\); nothing was sent/);
    expect(sandbox.state().payouts.length).toBe(before);
    expect((await json<Page<BatchView>>('batch', 'list')).items).toHaveLength(1);
  });

  it('needs --confirm-warnings for a file submitted before; --no-wait then resume finishes it', async () => {
    const refused = await cli('batch', 'submit', file);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/file: FILE_ALREADY_SUBMITTED/);
    expect(refused.err).toMatch(/error: payouts\.csv: 1 warning needs --confirm-warnings/);

    const stored = await cli('--json', 'batch', 'submit', file, '--confirm-warnings', '--no-wait');
    expect(stored.code).toBe(3);
    const view = JSON.parse(stored.out) as BatchView;
    expect(view.progress.total).toBe(3);
    const resumed = await cli('batch', 'resume', view.id, '--timeout', '60');
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain('Done: all 3 payouts final and successful.');
    expect(sandbox.state().payouts.length).toBe(8);
  });

  it('cancels a batch and reports it', async () => {
    const once = csvFile('once.csv', [',1.00,GBP,Eve Five,GB29NWBK60161331926819,UK_FPS,BANK_TRANSFER,eve@example.com,,']);
    const view = JSON.parse((await cli('--json', 'batch', 'submit', once, '--no-wait')).out) as BatchView;
    const cancelled = await json<BatchView>('batch', 'cancel', view.id);
    expect(['CANCELLED', 'COMPLETED']).toContain(cancelled.progress.state);
    expect((await cli('batch', 'status', 'no-such-batch')).code).toBe(1);
  });
});

describe('history export', () => {
  it('exports the filtered history as CSV', async () => {
    const out = join(home, 'history.csv');
    const r = await cli('--json', 'history', 'export', '--out', out, '--kind', 'payout', '--status', 'FAILED');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ rows: 1 });
    expect(readCsv(readFileSync(out, 'utf8')).map((x) => [x.kind, x.id, x.status, x.failureReason])).toEqual([['payout', 'cli-failing-1', 'FAILED', 'ACCOUNT_REJECTED']]);
    const usd = readCsv((await cli('history', 'export', '--currency', 'USD')).out);
    expect(usd.length).toBeGreaterThanOrEqual(2);
    expect(usd.every((x) => x.currencyCode === 'USD' && x.amount === '7.25')).toBe(true);
    expect((await cli('history', 'export', '--kind', 'refund')).code).toBe(2);
  });
});

describe('payins', () => {
  let idPayin = '';

  it('lists payment options for an amount', async () => {
    const r = await cli('payins', 'options', '--amount', '50.00', '--currency', 'EUR');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/VAPAY\s+VAPAY_EU\s+VaPay Europe/);
  });

  it('creates a payin, reads it and its account data, and sees it paid', async () => {
    const created = await json<PayinView>('payins', 'create', '--amount', '50.00', '--currency', 'EUR', '--operator', 'VAPAY_EU',
      '--account-name', 'Carl Customer', '--account-number', 'NL91ABNA0417164300', '--email', 'carl@example.com', '--return-url', 'https://shop.example/return');
    idPayin = created.idPayin;
    expect(created).toMatchObject({ status: 'PENDING', final: false, requested: { amount: '50.00', currencyCode: 'EUR' }, paymentMethodCode: 'VAPAY' });
    expect(created.account?.bankCode).toBe('VAPEU');
    const human = await cli('payins', 'get', idPayin);
    expect(human.out).toContain(`Payin ${idPayin}  PENDING`);
    expect(human.out).toMatch(/Pay into: .*VaPay Europe Bank \(VAPEU\)/);
    const data = await cli('payins', 'account-data', idPayin);
    expect(data.code).toBe(0);
    expect(data.out).toContain('NL91ABNA0417164300');

    await axios.post(`${sandbox.url}/_sandbox/payins/${idPayin}/pay`);
    const paid = await json<PayinView>('payins', 'get', idPayin);
    expect(paid).toMatchObject({ status: 'SUCCESS', final: true });
    expect((await cli('payins', 'create', '--amount', '-5', '--currency', 'EUR', '--operator', 'VAPAY_EU', '--account-name', 'C', '--account-number', 'N', '--email', 'c@example.com')).code).toBe(1);
  });

  it('prints a payin-scoped share token once, which allows only PAYIN_INFO for that payin', async () => {
    const human = await cli('payins', 'share-token', idPayin, '--validity', '300');
    expect(human.code).toBe(0);
    expect(human.out.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g)).toHaveLength(1);
    const { token } = await json<{ token: string }>('payins', 'share-token', idPayin, '--validity', '300');
    const get = (path: string) => axios.get(`${sandbox.url}${path}`, { headers: { Authorization: `Bearer ${token}`, 'X-API-Version': '2' }, validateStatus: () => true });
    expect((await get(`/payins/${idPayin}`)).status).toBe(200);
    expect((await get('/payins/some-other-payin')).status).toBe(403);
    expect((await get(`/payins/${idPayin}/account-data`)).status).toBe(403);
    expect((await cli('payins', 'share-token', idPayin, '--validity', '10')).code).toBe(1);
  });
});

describe('messages that say why', () => {
  it('names the absolute path of a file that is not there', async () => {
    const r = await cli('batch', 'validate', 'no-such-file.csv');
    // The one error line of every command: `error: ` first.
    expect(r.err).toBe(`error: File not found: ${resolve('no-such-file.csv')}\n`);
  });

  it('a batch whose gateway went away says why it is not final, and reads STOPPED once nothing sends it', async () => {
    await sandbox.close();
    sandboxClosed = true;
    const gone = csvFile('gone.csv', [',3.00,EUR,Gus Six,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,gus@example.com,,INV-G']);
    const r = await cli('batch', 'submit', gone, '--confirm-warnings', '--timeout', '3');
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/WAITING \(gateway unreachable since \d\d:\d\d \(ECONNREFUSED\)\)/);
    expect(r.out).toMatch(/Stopped waiting with 1 payout not final: gateway unreachable since \d\d:\d\d \(ECONNREFUSED\)\./);
    const id = /Batch (\S+) submitted/.exec(r.out)?.[1] ?? '';
    const list = await cli('batch', 'list');
    expect(list.out).toMatch(new RegExp(`${id}\\s+STOPPED`));
    expect(list.out).not.toMatch(new RegExp(`${id}\\s+RUNNING`));
  });
});

describe('audit verify', () => {
  it('passes on an intact journal and names the first bad entry after tampering', async () => {
    const ok = await cli('audit', 'verify');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^Audit log intact: All \d+ audit entries are intact/);

    const db = new Database(journalPath(home, PROFILE));
    db.exec('DROP TRIGGER audit_log_no_update');
    db.prepare('UPDATE audit_log SET details_json = ? WHERE seq = 2').run('{"edited":true}');
    db.close();
    const broken = await cli('audit', 'verify');
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/^Audit log BROKEN: first bad entry #2 \S+/);
    const asJson = await cli('--json', 'audit', 'verify');
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.out)).toMatchObject({ ok: false, firstBrokenSeq: 2, firstBrokenEntry: { seq: 2 } });
  });
});
