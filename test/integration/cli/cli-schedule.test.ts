// The calendar from the command line, against the sandbox and through the desk's batches, payouts and schedules
// services: `payouts create --execute-on`, `batch submit --execute-on`, a CSV whose execute_on column and a pain.001
// whose ReqdExctnDt say when the batch is released (one date for the whole file, or it is refused), and
// `schedule list|show|move|cancel|confirm-late` with the funding forecast. The profile counts in Europe/Berlin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchValidation, ScheduleList, ScheduleView } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

const home = mkdtempSync(join(tmpdir(), 'desk-cli-schedule-'));
const keyStore = new MemoryKeyStore();
let sandbox: SandboxHandle;
/** Next year: every date below is ahead whenever the test runs, and in winter (Berlin is UTC+1). */
const Y = new Date().getUTCFullYear() + 1;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
const ok = async (...args: string[]): Promise<string> => {
  const r = await cli(...args);
  if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}: ${r.err}${r.out}`);
  return r.out;
};
const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await ok('--json', ...args)) as T;

const file = (name: string, text: string): string => {
  const path = join(home, name);
  writeFileSync(path, text);
  return path;
};
const header = 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress,reference,execute_on';

/** A pain.001.001.09 run of two payment groups with a SEPA transaction each, asking for the dates given. */
function run(messageId: string, first: string, second: string): string {
  const group = (id: string, date: string, e2e: string, amount: string, name: string, iban: string) => `
    <PmtInf>
      <PmtInfId>${id}</PmtInfId><PmtMtd>TRF</PmtMtd><NbOfTxs>1</NbOfTxs><CtrlSum>${amount}</CtrlSum>
      <PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>
      <ReqdExctnDt>${date}</ReqdExctnDt>
      <Dbtr><Nm>Acme</Nm></Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct><DbtrAgt><FinInstnId><BICFI>BYLADEM1001</BICFI></FinInstnId></DbtrAgt>
      <CdtTrfTxInf>
        <PmtId><EndToEndId>${e2e}</EndToEndId></PmtId>
        <Amt><InstdAmt Ccy="EUR">${amount}</InstdAmt></Amt>
        <Cdtr><Nm>${name}</Nm><CtctDtls><EmailAdr>ap@${e2e.toLowerCase()}.example</EmailAdr></CtctDtls></Cdtr>
        <CdtrAcct><Id><IBAN>${iban}</IBAN></Id></CdtrAcct>
      </CdtTrfTxInf>
    </PmtInf>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">
  <CstmrCdtTrfInitn>
    <GrpHdr><MsgId>${messageId}</MsgId><CreDtTm>${Y - 1}-11-29T09:00:00</CreDtTm><NbOfTxs>2</NbOfTxs><CtrlSum>60.00</CtrlSum><InitgPty><Nm>Acme</Nm></InitgPty></GrpHdr>${group('PI-1', first, `${messageId}-1`, '40.00', 'Supplier One', 'DE89370400440532013000')}${group('PI-2', second, `${messageId}-2`, '20.00', 'Supplier Two', 'AT611904300234573201')}
  </CstmrCdtTrfInitn>
</Document>
`;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
});

describe("the profile's calendar settings", () => {
  it('profiles edit sets the zone release times are read in, and the late window', async () => {
    const bad = await cli('profiles', 'edit', '--time-zone', 'Mars/Olympus');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('time zone must be an IANA name such as Europe/Berlin');
    const out = await ok('profiles', 'edit', '--time-zone', 'Europe/Berlin', '--late-window', '90');
    expect(out).toContain('timeZone:  -> Europe/Berlin');
    expect(out).toContain('lateReleaseWindowMinutes: 360 -> 90');
  });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

describe('a payout released at its date', () => {
  const payout = ['--amount', '150000.00', '--currency', 'EUR', '--account-name', 'Jane Doe', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'jane@example.com'];

  it('is stored, not sent, in the zone named; more than the balance today is the forecast\'s to show, not a refusal', async () => {
    const out = await ok('payouts', 'create', ...payout, '--id', 'pay-later-1', '--execute-on', `${Y}-01-15T09:30`, '--zone', 'America/New_York');
    expect(out).toContain(`Payout pay-later-1 scheduled: released on ${Y}-01-15 09:30 America/New_York; nothing was sent now.`);
    expect(out).toMatch(/See it with: .*payout-desk schedule show payout pay-later-1/);
    const view = await json<ScheduleView>('schedule', 'show', 'payout', 'pay-later-1');
    expect(view).toMatchObject({ kind: 'payout', state: 'SCHEDULED', subjectState: 'HELD', local: `${Y}-01-15T09:30`, zone: 'America/New_York', executeAt: `${Y}-01-15T14:30:00.000Z` });
    // The same --id again: already scheduled, not stored twice (exit 0, not "held").
    expect(await ok('payouts', 'create', ...payout, '--id', 'pay-later-1', '--execute-on', `${Y}-01-15T09:30`, '--zone', 'America/New_York')).toContain('is already in the journal, scheduled: released on');

    const list = await cli('schedule', 'list', '--state', 'SCHEDULED');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(new RegExp(`${Y}-01-15 09:30 America/New_York\\s+payout\\s+pay-later-1\\s+Jane Doe\\s+150000.00 EUR\\s+SCHEDULED\\s+-`));
    expect(list.out).toContain('Funding forecast of the runs still to be released (days in Europe/Berlin');
    expect(list.out).toMatch(new RegExp(`${Y}-01-15\\s+EUR\\s+150000.00\\s+1\\s+150000.00\\s+100000.00\\s+50000.00`));
    expect(list.out).toContain(`warning: EUR short by 50000.00 on ${Y}-01-15: top up before then, or move or cancel a run`);
    const data = await json<ScheduleList & { shortfalls: string[] }>('schedule', 'list');
    expect(data.shortfalls).toEqual([`EUR short by 50000.00 on ${Y}-01-15`]);
  });

  it('refuses a time the clocks skip, a zone that does not exist, and options that do not go together', async () => {
    // The last Sunday of March: 02:30 does not exist in Berlin (the profile's zone).
    const lastSunday = new Date(Date.UTC(Y, 2, 31 - new Date(Date.UTC(Y, 2, 31)).getUTCDay())).toISOString().slice(0, 10);
    const skipped = await cli('payouts', 'create', ...payout, '--execute-on', `${lastSunday}T02:30`);
    expect(skipped.code).toBe(1);
    expect(skipped.err).toContain(`${lastSunday} 02:30 does not exist in Europe/Berlin: the clocks go forward that night; choose 03:00 or later`);
    const zone = await cli('payouts', 'create', ...payout, '--execute-on', `${Y}-01-15`, '--zone', 'Mars/Olympus');
    expect(zone.code).toBe(1);
    expect(zone.err).toContain('"Mars/Olympus" is not a time zone name');
    expect((await cli('payouts', 'create', ...payout, '--execute-on', '15.01.2027')).code).toBe(2);
    expect((await cli('payouts', 'create', ...payout, '--zone', 'UTC')).err).toContain('--zone goes with --execute-on');
    expect((await cli('payouts', 'create', ...payout, '--execute-on', `${Y}-01-15`, '--wait')).code).toBe(2);
    const past = await cli('payouts', 'create', ...payout, '--execute-on', '2020-01-01');
    expect(past.code).toBe(1);
    expect(past.err).toContain('is not ahead of now');
  });

  it('is moved, cancelled, and a run that is not late is not confirmed', async () => {
    const moved = await ok('schedule', 'move', 'payout', 'pay-later-1', '--on', `${Y}-02-01`);
    expect(moved).toContain(`Moved payout pay-later-1: released on ${Y}-02-01 08:00 Europe/Berlin.`);
    const notLate = await cli('schedule', 'confirm-late', 'payout', 'pay-later-1');
    expect(notLate.code).toBe(1);
    expect(notLate.err).toContain('payout pay-later-1 is scheduled, not waiting for a late release');
    const cancelled = await ok('schedule', 'cancel', 'payout', 'pay-later-1', '--reason', 'paid by hand');
    expect(cancelled).toContain('Cancelled payout pay-later-1: it was never sent.');
    expect((await json<ScheduleView>('schedule', 'show', 'payout', 'pay-later-1')).state).toBe('CANCELLED');
    const again = await cli('schedule', 'move', 'payout', 'pay-later-1', '--on', `${Y}-02-02`);
    expect(again.code).toBe(1);
    expect(again.err).toContain('cannot be moved');
    expect((await cli('schedule', 'show', 'payout', 'no-such-payout')).err).toContain("No scheduled payout no-such-payout in this profile's journal");
    expect((await cli('schedule', 'show', 'invoice', 'x')).code).toBe(2);
  });
});

describe('a batch released at its date', () => {
  it('a CSV whose execute_on column asks for one date: validated as such, scheduled then, no date asked', async () => {
    const csv = file('dated.csv', [
      header,
      `10.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,ann@example.com,INV-1,${Y}-01-20`,
      `20.50,EUR,Bob Two,DE02100500000054540402,EU_SEPA,bob@example.com,INV-2,${Y}-01-20`,
    ].join('\n'));
    const validated = await cli('batch', 'validate', csv);
    expect(validated.code).toBe(0);
    expect(validated.out).toContain(`The file asks for ${Y}-01-20 08:00 Europe/Berlin: the batch is released then, unless you choose another time.`);
    // The column is read, not listed among those only kept for the results.
    expect(validated.out).not.toContain('Columns not used for payouts');
    const view = await json<BatchValidation>('batch', 'validate', csv);
    expect(view.executeOn).toBe(`${Y}-01-20 08:00 Europe/Berlin`);

    const submitted = await ok('batch', 'submit', csv, '--batch', 'dated-csv');
    expect(submitted).toContain(`Scheduled: released on ${Y}-01-20 08:00 Europe/Berlin; nothing was sent now.`);
    expect(await json<ScheduleView>('schedule', 'show', 'batch', 'dated-csv')).toMatchObject({ state: 'SCHEDULED', subjectState: 'SCHEDULED', rows: 2, title: 'dated.csv' });
  });

  it('--execute-on wins over the file\'s own date; the batch is moved and cancelled', async () => {
    const csv = file('dated-2.csv', [header, `5.00,EUR,Cy Three,DE02120300000000202051,EU_SEPA,cy@example.com,INV-3,${Y}-01-20`].join('\n'));
    const submitted = await ok('batch', 'submit', csv, '--batch', 'dated-csv-2', '--execute-on', `${Y}-01-22T17:45`);
    expect(submitted).toContain(`The file's own date is set aside: --execute-on ${Y}-01-22 17:45 wins over it.`);
    expect(submitted).toContain(`Scheduled: released on ${Y}-01-22 17:45 Europe/Berlin`);
    const list = await ok('schedule', 'list', '--from', `${Y}-01-20`, '--to', `${Y}-01-22`);
    expect(list).toMatch(/dated-csv\s/);
    expect(list).toMatch(/dated-csv-2\s/);
    // --to of a date takes in that whole day; --from a later day leaves the earlier out.
    expect(await ok('schedule', 'list', '--from', `${Y}-01-21`)).not.toMatch(/dated-csv\s/);
    expect(await ok('schedule', 'move', 'batch', 'dated-csv-2', '--on', `${Y}-01-23`)).toContain(`Moved batch dated-csv-2: released on ${Y}-01-23 08:00 Europe/Berlin.`);
    expect(await ok('schedule', 'cancel', 'batch', 'dated-csv-2')).toContain('Cancelled batch dated-csv-2: it was never sent.');
  });

  it('a CSV whose date has passed is sent at once, and the review says so before', async () => {
    const csv = file('past.csv', [header, `4.00,EUR,Dee Four,DE02120300000000202051,EU_SEPA,dee@example.com,INV-4,${Y - 2}-03-03`].join('\n'));
    expect(await ok('batch', 'validate', csv)).toContain(`The file asks for ${Y - 2}-03-03 08:00 Europe/Berlin, which has passed: the batch is sent at once when submitted`);
    const sent = await cli('batch', 'submit', csv, '--batch', 'past-csv', '--timeout', '60');
    expect(sent.code).toBe(0);
    expect(sent.out).toContain('Done: 1 payout, final and successful.');
    expect((await cli('schedule', 'show', 'batch', 'past-csv')).code).toBe(1);
  });

  it('a CSV whose rows ask for different dates is refused, naming the rows of each', async () => {
    const csv = file('two-dates.csv', [
      header,
      `1.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,ann@example.com,A,${Y}-01-28`,
      `2.00,EUR,Bob Two,DE02100500000054540402,EU_SEPA,bob@example.com,B,${Y}-01-24`,
      `3.00,EUR,Cy Three,DE89370400440532013000,EU_SEPA,cy@example.com,C,${Y}-01-28`,
    ].join('\n'));
    const message = `A batch releases at one time: rows 2, 4 ask for ${Y}-01-28, row 3 for ${Y}-01-24; split the file per date`;
    const validated = await cli('batch', 'validate', csv);
    expect(validated.code).toBe(1);
    expect(validated.out).toContain(`file: EXECUTE_ON_MIXED - ${message}`);
    expect(validated.out).toContain('Fix the file and validate again: it cannot be sent as it is.');
    const submitted = await cli('batch', 'submit', csv);
    expect(submitted.code).toBe(1);
    expect(submitted.err).toContain(`file: EXECUTE_ON_MIXED - ${message}`);
    expect(submitted.err).toContain('two-dates.csv: the file cannot be sent as it is (file: EXECUTE_ON_MIXED); nothing was sent');
  });

  it('a pain.001.001.09 whose two payment groups ask for the same date is released then; two dates are refused', async () => {
    const same = file('run-same.xml', run('SCHED-RUN-1', `${Y}-01-26`, `${Y}-01-26`));
    const view = await json<BatchValidation>('batch', 'validate', same);
    expect(view.errors).toEqual([]);
    expect(view.executeOn).toBe(`${Y}-01-26 08:00 Europe/Berlin`);
    expect(await ok('batch', 'submit', same, '--batch', 'erp-dated')).toContain(`Scheduled: released on ${Y}-01-26 08:00 Europe/Berlin; nothing was sent now.`);
    expect(await json<ScheduleView>('schedule', 'show', 'batch', 'erp-dated')).toMatchObject({ state: 'SCHEDULED', rows: 2, local: `${Y}-01-26T08:00` });

    const two = file('run-two.xml', run('SCHED-RUN-2', `${Y}-01-26`, `${Y}-01-27`));
    const refused = await cli('batch', 'submit', two);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`A batch releases at one time: transaction 1 asks for ${Y}-01-26, transaction 2 for ${Y}-01-27; split the file per date`);
    // Nothing of it was stored: its MsgId is taken again once the dates agree (its rows are like the first run's).
    const first = await ok('batch', 'submit', file('run-two-a.xml', run('SCHED-RUN-2', `${Y}-01-26`, `${Y}-01-26`)), '--batch', 'erp-dated-2', '--confirm-warnings');
    expect(first).toContain('Scheduled: released on');
  });
});
