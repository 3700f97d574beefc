// Dual control through the CLI against the sandbox, over the same services the screens will use:
// the first person adds themselves, the others enrol with their own keys and an admin grants their roles,
// a policy set by an admin, a batch that waits for its approval (nothing sent, the reason shown and
// audited), approved by an approver and then sent; a wrong passphrase, a revocation, a row edited in the
// journal after approval and control records edited in the file, refused before anything is sent.
import { parse } from 'csv-parse/sync';
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView, BatchView, Page } from '../../../contract/api';
import { approvalSignatureValid } from '../../../main/approvals/approval';
import { runCli } from '../../../main/cli/index';
import { restoreCell } from '../../../main/csv/formula';
import { journalPath } from '../../../main/desk/profile-engine';
import type { PersonView, SubjectView } from '../../../main/desk/dual-control';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-dual-'));
const keyStore = new MemoryKeyStore();
const PROFILE = 'sandbox-eu';
const env = { ...process.env, ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2', EVE_PASS: 'eve passphrase 3', WRONG: 'not the passphrase' };

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}
const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference';
const csvFile = (name: string, rows: string[]) => {
  const path = join(home, name);
  writeFileSync(path, `${[header, ...rows].join('\r\n')}\r\n`);
  return path;
};
const audit = async () => (await json<Page<AuditEntryView>>('audit', 'list', '--limit', '200')).items;
const asAda = ['--as', 'Ada', '--passphrase-env', 'ADA_PASS'];
const asBob = ['--as', 'Bob', '--passphrase-env', 'BOB_PASS'];
const asEve = ['--as', 'Eve', '--passphrase-env', 'EVE_PASS'];

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
});
afterAll(async () => {
  await sandbox.close();
});

describe('dual control from the CLI', () => {
  let ada: PersonView;
  let bob: PersonView;

  it('adds the first person with every role, a warning and the root fingerprint; later people enrol themselves and an admin grants their roles', async () => {
    expect((await cli('people', 'list')).out).toContain('Nobody yet');
    const first = await json<{ person: PersonView; warning: string; control: { fingerprint: string; confirmed: boolean } }>('people', 'add', '--name', 'Ada', '--new-passphrase-env', 'ADA_PASS');
    ada = first.person;
    expect(ada.roles).toEqual(['preparer', 'approver', 'sender', 'viewer', 'admin']);
    expect(first.warning).toMatch(/nobody checks their payouts/);
    expect(first.control).toMatchObject({ fingerprint: expect.stringMatching(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/), confirmed: true });
    // Nobody adds a second person, not even an admin: their key would exist at someone else's desk.
    expect((await cli('people', 'add', '--name', 'Bob', '--new-passphrase-env', 'BOB_PASS')).err).toMatch(/enrol at their own desk/);
    // Each enrols at their own desk (this one, here) and is a viewer until an admin grants more.
    bob = (await json<{ person: PersonView }>('people', 'enroll', '--name', 'Bob', '--new-passphrase-env', 'BOB_PASS')).person;
    expect(bob.roles).toEqual(['viewer']);
    const enrolled = await cli('people', 'enroll', '--name', 'Eve', '--new-passphrase-env', 'EVE_PASS');
    expect(enrolled.out).toMatch(/Read your key's fingerprint to an admin, who grants your roles: \S+/);
    // Granting needs an admin who says who they are: not nobody, not Eve herself.
    expect((await cli('people', 'roles', 'Eve', '--roles', 'preparer')).err).toMatch(/Say who acts/);
    expect((await cli('people', 'roles', 'Eve', '--roles', 'preparer', ...asEve)).err).toMatch(/Eve does not hold the admin role/);
    bob = (await json<{ person: PersonView; proposal: null }>('people', 'roles', 'Bob', '--roles', 'approver', ...asAda)).person;
    expect(bob.roles).toEqual(['approver']);
    expect((await cli('people', 'roles', 'Eve', '--roles', 'preparer', ...asAda)).out).toMatch(/Roles changed: .*Eve {2}\[preparer\]/);
    expect((await cli('people', 'list')).out.split('\n').filter(Boolean)).toHaveLength(3);
    const control = await cli('people', 'control');
    expect(control.out).toContain(`Root fingerprint ${first.control.fingerprint} (confirmed at this desk)`);
    expect(control.out).toContain('5 control records');
    expect(control.out).toContain("The control records verify against this desk's pin");
  });

  it('says "wrong passphrase", and audits the failed unlock', async () => {
    const wrong = await cli('people', 'unlock', 'Bob', '--passphrase-env', 'WRONG');
    expect(wrong).toMatchObject({ code: 1, err: 'error: Wrong passphrase\n' });
    expect((await cli('people', 'unlock', 'Bob', '--passphrase-env', 'BOB_PASS')).out).toContain("Bob's signing key opens");
    const failed = (await audit()).find((e) => e.action === 'person.unlock-failed');
    expect(failed).toMatchObject({ subject: bob.id, details: expect.objectContaining({ actor: `person:${bob.id}`, code: 'WRONG_PASSPHRASE' }) });
    expect(JSON.stringify(await audit())).not.toContain('passphrase 2');
  });

  it('keeps the TEST default (no approval) until an admin sets a policy, which is then in force', async () => {
    expect((await cli('policy', 'show')).out).toMatch(/Policy version 0 \(the built-in default\)\n {2}no approval needed/);
    const rules = join(home, 'rules.json');
    writeFileSync(rules, JSON.stringify({ bands: { EUR: [{ atLeast: '25', approvals: 1 }] }, newOrChangedPayee: 0 }));
    expect((await cli('policy', 'set', '--file', rules, '--as', 'Bob', '--passphrase-env', 'BOB_PASS')).err).toMatch(/does not hold the admin role/);
    expect((await cli('policy', 'set', '--file', rules, ...asAda)).out).toContain('Policy version 1 is in force');
    expect((await cli('policy', 'show')).out).toContain('EUR from 25: 1 approval');
  });

  let batchId = '';

  it('pauses a batch that needs an approval: nothing sent, the reason shown and audited', async () => {
    const file = csvFile('june.csv', [
      'dc-1,10.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,ann@example.com,,',
      'dc-2,20.50,EUR,Bob Two,DE02100500000054540402,EU_SEPA,BANK_TRANSFER,bob@example.com,,',
    ]);
    // Once the profile has people, preparing needs an unlocked preparer; Bob only approves.
    expect((await cli('batch', 'submit', file, '--timeout', '30')).err).toMatch(/error: Dual control is on for this profile: name a preparer with --as <person> and their passphrase \(--passphrase-env or --passphrase-file\); nothing was sent/);
    expect((await cli('batch', 'submit', file, '--timeout', '30', ...asBob)).err).toMatch(/Bob does not hold the preparer role/);
    const r = await cli('batch', 'submit', file, '--timeout', '30', ...asEve);
    expect(r.code).toBe(3);
    batchId = /Batch (\S+) submitted/.exec(r.out)?.[1] ?? '';
    expect(r.out).toContain('Paused: Nothing was sent: it needs 1 approval (30.50 EUR: 1), has 0.');
    expect(sandbox.state().createAttempts.payouts['dc-1']).toBeUndefined();
    const refused = (await audit()).find((e) => e.action === 'approval.refused');
    expect(refused).toMatchObject({ subject: batchId, details: expect.objectContaining({ code: 'MISSING_APPROVALS' }) });
    const shown = await json<SubjectView>('approvals', 'show', 'batch', batchId);
    expect(shown.preparedBy).toBe((await json<PersonView[]>('people', 'list')).find((p) => p.name === 'Eve')!.id);
    expect(shown).toMatchObject({ rows: 2, totals: [{ currency: 'EUR', amount: '30.50', count: 2 }], verdict: { ok: false, code: 'MISSING_APPROVALS' } });
    // A person reads who prepared it by name, not only by id.
    expect((await cli('approvals', 'show', 'batch', batchId)).out).toContain(`prepared by Eve (${shown.preparedBy})`);
  });

  it('refuses a rejection without a reason, then sends the batch once an approver signed and it is resumed', async () => {
    expect((await cli('approvals', 'reject', 'batch', batchId, ...asBob)).code).toBe(2);
    // Eve prepared it: she cannot approve her own work (and is no approver anyway); Ada, who could, did not prepare it.
    expect((await cli('approvals', 'approve', 'batch', batchId, ...asEve)).err).toMatch(/does not hold the approver role/);
    const approved = await cli('approvals', 'approve', 'batch', batchId, ...asBob);
    expect(approved.out).toMatch(/Approved batch \S+ \(manifest SHA-256 [0-9a-f]{64}\)/);
    expect(approved.out).toContain('may be sent: approved by 1 of 1 needed');
    expect((await cli('approvals', 'list')).out).toMatch(new RegExp(`approve +batch ${batchId} +by Bob \\(${bob.id}\\)`));
    // Resuming sends: it is the sender's act. Nobody unlocked, or Bob (approver only), cannot.
    expect((await cli('batch', 'resume', batchId, '--timeout', '30')).err).toMatch(/name a sender with --as <person> and their passphrase \(--passphrase-env or --passphrase-file\); nothing was sent/);
    expect((await cli('batch', 'resume', batchId, '--timeout', '30', ...asBob)).err).toMatch(/Bob does not hold the sender role now/);
    expect(sandbox.state().createAttempts.payouts['dc-1']).toBeUndefined();
    const resumed = await cli('--json', 'batch', 'resume', batchId, '--timeout', '30', ...asAda);
    const view = JSON.parse(resumed.out) as BatchView;
    expect(view.progress.sent).toBe(2);
    expect(sandbox.state().createAttempts.payouts['dc-1']).toBe(1);
    expect((await audit()).find((e) => e.action === 'batch.running' && e.subject === batchId)).toMatchObject({ details: expect.objectContaining({ actor: `person:${ada.id}` }) });
    const given = (await audit()).find((e) => e.action === 'approval.given');
    expect(given).toMatchObject({ subject: batchId, details: expect.objectContaining({ actor: `person:${bob.id}`, name: 'Bob' }) });
  });

  it('holds a single payout that needs an approval (exit 4, nothing sent) and sends it on release once approved', async () => {
    const payout = ['--amount', '30.00', '--currency', 'EUR', '--account-name', 'Dee Four', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'dee@example.com', '--id', 'dc-single'];
    const held = await cli('payouts', 'create', ...payout, ...asEve);
    expect(held.code).toBe(4);
    expect(held.err).toMatch(/held, not sent.*Nothing was sent: it needs 1 approval \(30\.00 EUR: 1\), has 0/s);
    expect(sandbox.state().createAttempts.payouts['dc-single']).toBeUndefined();
    expect((await cli('approvals', 'approve', 'payout', 'dc-single', ...asBob)).code).toBe(0);
    expect((await cli('payouts', 'release', 'dc-single')).err).toMatch(/name a sender with --as <person> and their passphrase \(--passphrase-env or --passphrase-file\); nothing was sent/);
    expect((await cli('payouts', 'release', 'dc-single', ...asEve)).err).toMatch(/Eve does not hold the sender role now/);
    expect(sandbox.state().createAttempts.payouts['dc-single']).toBeUndefined();
    const released = await cli('payouts', 'release', 'dc-single', ...asAda);
    expect(released.code).toBe(0);
    expect((await audit()).find((e) => e.action === 'payout.released' && e.subject === 'dc-single')).toMatchObject({ details: expect.objectContaining({ actor: `person:${ada.id}` }) });
    expect(sandbox.state().createAttempts.payouts['dc-single']).toBe(1);
  });

  it('refuses a batch whose row was edited in the journal after approval, and one whose approver was then revoked', async () => {
    const file = csvFile('july.csv', ['dc-3,40.00,EUR,Cy Three,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,cy@example.com,,']);
    const first = await cli('batch', 'submit', file, '--timeout', '30', ...asAda);
    // Ada prepared this one: her own approval is refused before anything is signed.
    expect((await cli('approvals', 'approve', 'batch', /Batch (\S+) submitted/.exec(first.out)?.[1] ?? '', ...asAda)).err).toMatch(/Ada prepared this batch and cannot approve/);
    const id = /Batch (\S+) submitted/.exec(first.out)?.[1] ?? '';
    expect((await cli('approvals', 'approve', 'batch', id, ...asBob)).code).toBe(0);
    const db = new Database(journalPath(home, PROFILE));
    db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id = 'dc-3'`).run();
    db.close();
    const edited = await cli('batch', 'resume', id, '--timeout', '30', ...asAda);
    // The edited row is neither what its preparer signed nor what Bob approved.
    expect(edited.out).toMatch(/Paused: Nothing was sent: batch \S+ is not what Ada prepared/);
    expect(sandbox.state().createAttempts.payouts['dc-3']).toBeUndefined();
    expect(((await json<SubjectView>('approvals', 'show', 'batch', id)).verdict)).toMatchObject({ ok: false, code: 'MANIFEST_CHANGED' });

    const revoked = await json<{ approvalsVoided: number }>('people', 'revoke', 'Bob', '--reason', 'left the company', ...asAda);
    expect(revoked.approvalsVoided).toBe(1);
    expect((await cli('people', 'unlock', 'Bob', '--passphrase-env', 'BOB_PASS')).err).toMatch(/revoked/);
    expect((await cli('people', 'revoke', 'Ada', '--reason', 'x', ...asAda)).err).toMatch(/last admin/);
    const actions = (await audit()).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['person.added', 'person.enrolled', 'person.roles-changed', 'policy.changed', 'approval.refused', 'approval.given', 'person.revoked']));
    expect((await cli('audit', 'verify')).code).toBe(0);
  });
  it('exports the approvals sheet with the results, verifiable without the desk, and audit verify names an altered approval', async () => {
    const results = join(home, 'june-results.csv');
    const sheet = join(home, 'june-approvals.csv');
    expect((await cli('batch', 'export', batchId, '--approvals-out', sheet)).err).toMatch(/--approvals-out goes with --out/);
    expect((await cli('batch', 'export', batchId, '--out', results, '--approvals-out', sheet)).code).toBe(0);
    const rows = parse(readFileSync(sheet, 'utf8'), { bom: true, columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      subjectKind: 'batch', subjectId: batchId, decision: 'approve', signerName: 'Bob', signerId: bob.id, signerRolesAtSigning: 'approver',
      manifestMatchesJournal: 'yes', signatureValid: 'yes', policyVersion: '1',
    });
    expect(row['signerRevokedAt']).not.toBe('');
    const stored = (await json<{ id: string; manifestDigest: string; signature: string }[]>('approvals', 'list')).find((a) => a.id === row['approvalId'])!;
    expect(row['manifestSha256']).toBe(stored.manifestDigest);
    // An auditor checks the signature with the sheet alone: the fields, the public key, the signature.
    const record = {
      id: row['approvalId']!, profileId: PROFILE, subject: { kind: 'batch' as const, id: batchId }, manifestDigest: row['manifestSha256']!, policyVersion: Number(row['policyVersion']),
      decision: 'approve' as const, reason: row['reason'] || null, signerId: row['signerId']!, signedAt: Date.parse(row['signedAt']!), signature: restoreCell(row['signatureBase64']!),
    };
    expect(record.signature).toBe(stored.signature);
    expect(approvalSignatureValid(record, restoreCell(row['signerPublicKeySpkiBase64']!))).toBe(true);
    expect(readFileSync(results, 'utf8')).toContain('dc-1');

    // Someone with the file drops the append-only trigger and back-dates the signature by a second.
    const db = new Database(journalPath(home, PROFILE));
    const trigger = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'approvals' AND sql LIKE '%UPDATE%'`).get() as { name: string }).name;
    db.exec(`DROP TRIGGER ${trigger}`);
    db.prepare('UPDATE approvals SET signed_at = signed_at - 1000 WHERE id = ?').run(record.id);
    db.close();
    const verified = await cli('audit', 'verify');
    expect(verified.code).toBe(1);
    expect(verified.out).toContain('Audit log intact, but 1 approval does not verify');
    expect(verified.out).toContain(`BAD APPROVAL ${record.id} (batch ${batchId}, signer Bob)`);
    const asJson = JSON.parse((await cli('--json', 'audit', 'verify')).out) as { approvals: { checked: number; bad: { approvalId: string }[] } };
    expect(asJson.approvals.bad.map((b) => b.approvalId)).toEqual([record.id]);
    expect(asJson.approvals.checked).toBeGreaterThanOrEqual(3);
  });

  it('audit verify names a policy record whose rules were changed in the file after the admin signed them, and nothing is sent then', async () => {
    const before = JSON.parse((await cli('--json', 'audit', 'verify')).out) as { policies: { checked: number; bad: unknown[] } };
    expect(before.policies.checked).toBeGreaterThanOrEqual(6);
    expect(before.policies.bad).toEqual([]);
    // Someone with the file lowers the approvals the policy record asks for.
    const db = new Database(journalPath(home, PROFILE));
    const trigger = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'control_chain' AND sql LIKE '%UPDATE%'`).get() as { name: string }).name;
    db.exec(`DROP TRIGGER ${trigger}`);
    const row = db.prepare(`SELECT seq, record_json AS json FROM control_chain WHERE record_json LIKE '%"kind":"policy"%' ORDER BY seq DESC LIMIT 1`).get() as { seq: number; json: string };
    const record = JSON.parse(row.json) as { body: { rules: unknown } };
    record.body.rules = { bands: { '*': [{ atLeast: '0', approvals: 0 }] }, newOrChangedPayee: 0 };
    db.prepare('UPDATE control_chain SET record_json = ? WHERE seq = ?').run(JSON.stringify(record), row.seq);
    db.close();
    const verified = await cli('audit', 'verify');
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`BAD POLICY version ${row.seq}: control records: control record ${row.seq}: its content does not give its hash (it was edited)`);
    // The desk believes none of it now: nothing is prepared, approved or sent until the records are put back.
    expect((await cli('people', 'control')).out).toMatch(/NOTHING IS SENT: control record \d+: its content does not give its hash/);
    const payout = ['--amount', '1.00', '--currency', 'EUR', '--account-name', 'Dee Four', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'dee@example.com', '--id', 'dc-after'];
    expect((await cli('payouts', 'create', ...payout, ...asEve)).err).toMatch(/its content does not give its hash/);
    expect(sandbox.state().createAttempts.payouts['dc-after']).toBeUndefined();
  });
});
