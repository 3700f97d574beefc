// The CLI's twin of a pain.001 payment run: `profiles iso20022 show|set|reset` (operator rules, fallback e-mail),
// `batch validate run.xml` (a row no rule maps is an error naming its transaction), `batch submit run.xml` and
// `batch export <id> --format pain.002 --out …`, against the sandbox; the same run (its MsgId) or a transaction of it
// (its EndToEndId) again is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

const home = mkdtempSync(join(tmpdir(), 'desk-cli-pain001-'));
const keyStore = new MemoryKeyStore();
let sandbox: SandboxHandle;
let profile = '';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
const ok = async (args: string[]): Promise<string> => {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}: ${r.err}${r.out}`);
  return r.out;
};

/** Two transactions without a creditor e-mail: one SEPA, one to a Swiss bank with no service level. */
const RUN = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">
  <CstmrCdtTrfInitn>
    <GrpHdr><MsgId>CLI-RUN-1</MsgId><CreDtTm>2026-03-02T09:00:00</CreDtTm><NbOfTxs>2</NbOfTxs><CtrlSum>60.00</CtrlSum><InitgPty><Nm>Acme</Nm></InitgPty></GrpHdr>
    <PmtInf>
      <PmtInfId>PI-1</PmtInfId><PmtMtd>TRF</PmtMtd><ReqdExctnDt>2026-03-03</ReqdExctnDt>
      <Dbtr><Nm>Acme</Nm></Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct><DbtrAgt><FinInstnId><BIC>BYLADEM1001</BIC></FinInstnId></DbtrAgt>
      <CdtTrfTxInf>
        <PmtId><EndToEndId>CLI-E2E-1</EndToEndId></PmtId>
        <PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>
        <Amt><InstdAmt Ccy="EUR">40.00</InstdAmt></Amt>
        <Cdtr><Nm>Supplier One</Nm></Cdtr>
        <CdtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></CdtrAcct>
      </CdtTrfTxInf>
      <CdtTrfTxInf>
        <PmtId><EndToEndId>CLI-E2E-2</EndToEndId></PmtId>
        <Amt><InstdAmt Ccy="EUR">20.00</InstdAmt></Amt>
        <CdtrAgt><FinInstnId><BIC>UBSWCHZH80A</BIC></FinInstnId></CdtrAgt>
        <Cdtr><Nm>Supplier Two</Nm></Cdtr>
        <CdtrAcct><Id><IBAN>AT611904300234573201</IBAN></Id></CdtrAcct>
      </CdtTrfTxInf>
    </PmtInf>
  </CstmrCdtTrfInitn>
</Document>
`;

beforeAll(async () => {
  sandbox = await startSandbox();
  profile = await addSandboxProfile((...args) => cli(args), home, keyStore, sandbox.url);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

describe('pain.001 from the command line', () => {
  it('sets the rules, validates, submits and exports the pain.002 status report', async () => {
    const file = join(home, 'run.xml');
    writeFileSync(file, RUN);
    expect(await ok(['profiles', 'iso20022', 'show', profile])).toContain('rule 1  service level SEPA → EU_SEPA');

    // The defaults: no rule maps the Swiss transaction, and neither has an e-mail.
    const first = await cli(['batch', 'validate', file]);
    expect(first.code).toBe(1);
    expect(first.out).toContain('read as ISO 20022 pain.001.001.03, 2 transactions in 1 payment group (MsgId CLI-RUN-1)');
    expect(first.out).toContain('row 2, column "payment operator (profile rule)": OPERATOR_UNKNOWN - PmtInf "PI-1", EndToEndId "CLI-E2E-2": no operator rule of this profile matches it');
    expect(first.out).toContain('column "CdtTrfTxInf/Cdtr/CtctDtls/EmailAdr": REQUIRED');

    const usage = await cli(['profiles', 'iso20022', 'set', profile, '--rule', 'country=CH']);
    expect(usage.code).toBe(2);
    const set = await ok(['profiles', 'iso20022', 'set', profile, '--rule', 'serviceLevel:SEPA=EU_SEPA', '--rule', 'bicCountry:ch=EU_SEPA', '--fallback-email', 'ap@acme.example']);
    expect(set).toContain('rule 2  BIC country CH → EU_SEPA');
    expect(JSON.parse(await ok(['--json', 'profiles', 'iso20022', 'show', profile]))).toEqual({
      profile,
      default: false,
      iso20022: { operatorRules: [{ when: 'serviceLevel', is: 'SEPA', operator: 'EU_SEPA' }, { when: 'bicCountry', is: 'CH', operator: 'EU_SEPA' }], fallbackEmail: 'ap@acme.example' },
    });
    expect(await ok(['batch', 'validate', file])).toContain('All rows are valid');

    const submitted = await ok(['batch', 'submit', file, '--batch', 'erp-run-1', '--timeout', '60']);
    expect(submitted).toContain('Done: all 2 payouts final and successful.');
    const out = join(home, 'status.xml');
    expect(await ok(['batch', 'export', 'erp-run-1', '--format', 'pain.002', '--out', out])).toContain(`Written to ${out}`);
    const report = readFileSync(out, 'utf8');
    expect(report).toContain('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">');
    expect(report).toContain('<OrgnlMsgId>CLI-RUN-1</OrgnlMsgId>');
    expect(report).toMatch(/<OrgnlEndToEndId>CLI-E2E-1<\/OrgnlEndToEndId>\s*<TxSts>ACSC<\/TxSts>/);
    expect(report).toMatch(/<OrgnlEndToEndId>CLI-E2E-2<\/OrgnlEndToEndId>\s*<TxSts>ACSC<\/TxSts>/);
    expect((await cli(['batch', 'export', 'erp-run-1', '--format', 'pain.003'])).code).toBe(2);

    // The same run again: refused as a whole (its MsgId was imported), naming the batch; nothing is sent.
    const again = await cli(['batch', 'validate', file]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/This payment run \(MsgId "CLI-RUN-1"\) was imported before, as batch erp-run-1 \(file run\.xml\) on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC; nothing of it was imported now\..*\(RUN_ALREADY_IMPORTED\)/);
    const resubmit = await cli(['batch', 'submit', file, '--timeout', '60']);
    expect(resubmit.code).toBe(1);
    expect(resubmit.err).toContain('This payment run (MsgId "CLI-RUN-1") was imported before, as batch erp-run-1');
    // A new run (new MsgId) holding a transaction of that one: an error on its row, naming the payout and batch.
    const next = join(home, 'run-2.xml');
    writeFileSync(next, RUN.replace('<MsgId>CLI-RUN-1</MsgId>', '<MsgId>CLI-RUN-2</MsgId>').replace('CLI-E2E-2', 'CLI-E2E-3'));
    const repeated = await cli(['batch', 'validate', next]);
    expect(repeated.code).toBe(1);
    expect(repeated.out).toContain('row 1, column "CdtTrfTxInf/PmtId/EndToEndId": END_TO_END_ID_EXISTS - PmtInf "PI-1", EndToEndId "CLI-E2E-1": its EndToEndId was imported before in PmtInf "PI-1", as payout CLI-E2E-1 of batch erp-run-1 (file run.xml) on ');
    expect(repeated.out).not.toContain('row 2,');

    const reset = await ok(['profiles', 'iso20022', 'reset', profile]);
    expect(reset).toContain('rule 1  service level SEPA → EU_SEPA');
    expect(reset).not.toContain('rule 2');
    expect(reset).toMatch(/fallback e-mail {2}\(none/);
  });
});
