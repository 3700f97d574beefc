// The payee book as the desk reads it (finding 7 of issue 23), over the real runtime, payee service and SQLite
// journal, dual control on through a signed control chain: rows written straight into the payees table by
// someone holding the journal file count for nothing the chain's people did not vouch for. The gate's flags,
// `payees list|show` (the service) and the screens (the IPC) see the book as it holds, and each version that
// does not hold is audited once (payee.ignored). Without dual control nothing changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalApprovalGate } from '../../../main/approvals/gate';
import { createAppContext, type AppContext } from '../../../main/context';
import { createFileGrants } from '../../../main/desk';
import { dualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { bookReading, payeeService, type PayeeService } from '../../../main/desk/payees';
import { payeesIpcService } from '../../../main/desk/payees-ipc';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import type { Journal } from '../../../main/store/sqlite';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { newOrChangedPayeeCount } from '../../../main/payees/match';
import { changeDigest, keysOf, type PayeeDetails } from '../../../main/payees/payee';
import { chainOf, member, preparingAs } from '../approvals/helpers';
import { payout, sqliteJournalOf } from '../journal/helpers';

const PROFILE = 'p1';
const A = 'NL91ABNA0417164300';
const B = 'DE89370400440532013000';
const C = 'GB82WEST12345698765432';
const D = 'FR1420041010050500013M02606';

const ada = member('ada', ['admin']);
const paula = member('paula', ['preparer']);
const alice = member('alice', ['approver']);

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let svc: PayeeService;
let journal: Journal;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'verified-book-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Payees', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  svc = payeeService(rt);
  await rt.auditSeal(PROFILE);
  journal = await sqliteJournalOf(rt, PROFILE);
  // Grace was paid to A before, Hedy to C.
  journal.insertPayment('payout', payout('old-grace', { accountName: 'Grace Hopper', emailAddress: 'grace@example.com', accountNumber: A }));
  journal.markSending('payout', 'old-grace');
  journal.insertPayment('payout', payout('old-hedy', { accountName: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: C }));
  journal.markSending('payout', 'old-hedy');
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

/** Dual control on: a control chain whose genesis makes Ada (admin), Paula (preparer), Alice (approver) and a policy. */
async function dualControl(): Promise<void> {
  const [genesis] = chainOf(PROFILE, [ada, paula, alice], { policy: { version: 1, rules: { bands: {}, newOrChangedPayee: 1 } } });
  await (await rt.dualControlFor(PROFILE)).appendChain(genesis!);
}

const grace = (accountNumber: string): PayeeDetails => ({ name: 'Grace Hopper', accountNumber, operatorCode: 'EU_SEPA', emailAddress: 'grace@example.com', referenceDefault: null });

/** A version written into the payees table with SQL, as the service would write it but with nobody's approval. */
function insertVersion(payeeId: string, version: number, d: PayeeDetails, before: PayeeDetails | null): void {
  const at = Date.now();
  const { nameKey, emailKey } = keysOf(d);
  if (version > 1) journal.db.prepare("UPDATE payees SET closed_at = ?, close_reason = 'superseded' WHERE payee_id = ? AND closed_at IS NULL").run(at, payeeId);
  journal.db.prepare(
    `INSERT INTO payees (payee_id, version, base_version, name, name_key, account_number, operator_code, email_address, email_key, reference_default, source, source_ref,
       bank_change, change_digest, created_at, created_by, effective_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'hand', NULL, 0, ?, ?, 'paula', ?)`,
  ).run(payeeId, version, version > 1 ? version - 1 : null, d.name, nameKey, d.accountNumber, d.operatorCode, d.emailAddress, emailKey,
    changeDigest({ profileId: PROFILE, payeeId, version, before, after: d, createdBy: 'paula', createdAt: at }), at, at);
}

let batches = 0;
/** A batch of rows to Grace (and Hedy), prepared and signed by Paula; its flags through the service and the gate. */
async function batchTo(accounts: string[], hedy?: string): Promise<{ flags: string[][]; gate: { ok: boolean; payeeExtra: number | undefined } }> {
  const id = `b${++batches}`;
  const rows = [
    ...accounts.map((accountNumber, i) => payout(`${id}-g${i}`, { accountName: 'Grace Hopper', emailAddress: 'grace@example.com', accountNumber })),
    ...(hedy ? [payout(`${id}-h`, { accountName: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: hedy })] : []),
  ];
  journal.createBatch({ id, fileName: `${id}.csv`, sha256: id, rows, preparedBy: 'paula' });
  const subject = { kind: 'batch' as const, id };
  const dc = await rt.dualControlFor(PROFILE);
  const payees = await rt.payeesFor(PROFILE);
  if ((await rt.controlFor(PROFILE)).enforced) await preparingAs(dc, [paula], PROFILE)(subject, 'paula', { rows: journal.manifestRows('batch', id), fileSha256: id });
  // The gate as the runtime builds it for the engine (runtime.ts: newOrChangedPayees).
  const gate = journalApprovalGate({
    journal, repository: dc, control: () => rt.controlFor(PROFILE), newOrChangedPayees: newOrChangedPayeeCount(payees, bookReading(rt, PROFILE)), payeesMarker: () => payees.changeMarker(),
  });
  const decision = await gate.check(subject);
  const flags = (await svc.flags(PROFILE, subject)).map((f) => [f.rowId.replace(`${id}-`, ''), f.flag]);
  return { flags, gate: { ok: decision.ok, payeeExtra: decision.verdict?.requirement.payeeExtra } };
}

const ignored = () => journal.listAudit(500).filter((e) => e.action === 'payee.ignored');

describe('with dual control on', () => {
  it('a version written straight into the table (another account, in force, bank_change 0) does not hide "changed bank details"; it is listed as not verified and audited once', async () => {
    await dualControl();
    const { payee } = await svc.add(PROFILE, grace(A), paula.session);
    expect(payee.state).toBe('in force');
    insertVersion(payee.id, 2, grace(B), grace(A));

    expect(await batchTo([B, A])).toEqual({ flags: [['g0', 'changed']], gate: { ok: false, payeeExtra: 1 } });
    const [listed] = await svc.list(PROFILE);
    expect(listed).toMatchObject({ id: payee.id, version: 2, accountNumber: B, state: 'not verified', problem: expect.stringContaining('which no trusted earlier version had') });
    expect(await svc.find(PROFILE, 'grace hopper')).toMatchObject({ state: 'not verified' });
    // The screens never show it as in force; the export leaves it out.
    const ipc = payeesIpcService(rt, dualControlService(rt), svc, createFileGrants());
    const profile = ctx.profiles.get(PROFILE);
    expect((await ipc.list(profile, {})).map((p) => [p.name, p.state, p.problem !== null])).toEqual([['Grace Hopper', 'not verified', true]]);
    expect((await ipc.versions(profile, { payeeId: payee.id })).map((v) => [v.version, v.state])).toEqual([[1, 'superseded'], [2, 'not verified']]);
    expect((await svc.exportCsv(PROFILE)).rows).toBe(0);
    // Read by the gate, the list, show and the IPC: one audit entry for the version.
    expect(ignored()).toEqual([expect.objectContaining({ actor: 'payees', subject: payee.id, details: expect.objectContaining({ version: 2, account: '…3000' }) })]);

    // Submitted again through the service, its details wait for an approver, shown as a change from the
    // details that held; approved, they hold.
    const again = await svc.edit(PROFILE, payee.id, {}, paula.session);
    expect(again).toMatchObject({ inForce: false, payee: { state: 'not verified', waiting: { version: 3, bankChange: true, before: { accountNumber: A }, after: { accountNumber: B } } } });
    expect((await svc.decide(PROFILE, payee.id, 'approve', null, alice.session)).payee).toMatchObject({ version: 3, accountNumber: B, state: 'in force', problem: null });
    expect((await batchTo([B])).flags).toEqual([]);
  });

  it('an approved change stays in force', async () => {
    await dualControl();
    const { payee } = await svc.add(PROFILE, grace(A), paula.session);
    await svc.edit(PROFILE, payee.id, { accountNumber: B }, paula.session);
    await svc.decide(PROFILE, payee.id, 'approve', null, alice.session);
    expect(await svc.find(PROFILE, payee.id)).toMatchObject({ version: 2, accountNumber: B, state: 'in force', problem: null });
    expect(await batchTo([B, A])).toEqual({ flags: [['g1', 'changed']], gate: { ok: false, payeeExtra: 1 } });
    expect(await batchTo([B])).toEqual({ flags: [], gate: { ok: true, payeeExtra: 0 } });
    // An edit of her e-mail keeps the approved account in force.
    await svc.edit(PROFILE, payee.id, { emailAddress: 'grace.h@example.com' }, paula.session);
    expect(await svc.find(PROFILE, payee.id)).toMatchObject({ version: 3, state: 'in force' });
    expect(ignored()).toEqual([]);
  });

  it('an approved version whose row was edited afterwards (account changed) no longer counts', async () => {
    await dualControl();
    const { payee } = await svc.add(PROFILE, grace(A), paula.session);
    await svc.edit(PROFILE, payee.id, { accountNumber: B }, paula.session);
    await svc.decide(PROFILE, payee.id, 'approve', null, alice.session);
    journal.db.exec('DROP TRIGGER payees_fixed');
    journal.db.prepare('UPDATE payees SET account_number = ? WHERE payee_id = ? AND version = 2').run(D, payee.id);

    expect(await batchTo([D])).toEqual({ flags: [['g0', 'changed']], gate: { ok: false, payeeExtra: 1 } });
    expect(await svc.find(PROFILE, payee.id)).toMatchObject({ accountNumber: D, state: 'not verified', problem: expect.stringContaining('what Alice signed is not the change stored now') });
    expect(ignored()).toHaveLength(1);
  });

  it('a first version written for a name paid before to another account is ignored', async () => {
    await dualControl();
    insertVersion('inserted-hedy', 1, { name: 'Hedy Lamarr', accountNumber: D, operatorCode: 'EU_SEPA', emailAddress: 'hedy@example.com', referenceDefault: null }, null);
    expect(await batchTo([], D)).toEqual({ flags: [['h', 'changed']], gate: { ok: false, payeeExtra: 1 } });
    expect(await svc.find(PROFILE, 'Hedy Lamarr')).toMatchObject({ state: 'not verified', problem: expect.stringContaining('not an account Hedy Lamarr was paid to before') });
    expect(ignored().map((e) => e.subject)).toEqual(['inserted-hedy']);
    // One to the account she was paid to holds, as the service would have put it in force.
    insertVersion('inserted-grace', 1, grace(A), null);
    expect(await svc.find(PROFILE, 'Grace Hopper')).toMatchObject({ state: 'in force', problem: null });
  });
});

describe('without dual control', () => {
  it('the book is its columns, as before: the written version is in force, nothing is flagged or audited', async () => {
    const { payee } = await svc.add(PROFILE, grace(A), null);
    insertVersion(payee.id, 2, grace(B), grace(A));
    insertVersion('inserted-hedy', 1, { name: 'Hedy Lamarr', accountNumber: D, operatorCode: 'EU_SEPA', emailAddress: 'hedy@example.com', referenceDefault: null }, null);
    expect(await batchTo([B], D)).toEqual({ flags: [], gate: { ok: true, payeeExtra: undefined } });
    expect((await svc.list(PROFILE)).map((p) => [p.name, p.accountNumber, p.state, p.problem])).toEqual([['Grace Hopper', B, 'in force', null], ['Hedy Lamarr', D, 'in force', null]]);
    expect(ignored()).toEqual([]);
  });
});
