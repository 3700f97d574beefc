// Verifying the approvals of a 100,000-row batch at the gate (issue 14 target: < 1 s): the control records
// read and checked against this desk's pin, the manifest rebuilt from the journal's rows, its canonical bytes
// and SHA-256, the preparer's signature over it, and two Ed25519 approvals checked against the people and the
// policy the control records establish. Each stage is timed on its own so a slow one shows; repeated, median printed.
// Run: npx tsx bench/approvals-verify.ts [--rows 100000] [--repeat 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signApproval } from '../main/approvals/approval';
import { journalApprovalGate, manifestFromJournal, preparationProblem } from '../main/approvals/gate';
import { manifestCanonicalPieces, manifestDigest } from '../main/approvals/manifest';
import { signPreparation } from '../main/approvals/preparation';
import { SqliteDualControlRepository } from '../main/store/sqlite/dual-control';
import { verifyApprovals } from '../main/approvals/verify';
import { newOrChangedPayeeCount } from '../main/payees/match';
import { SqlitePayeeRepository } from '../main/store/sqlite/payees';
import { openJournal } from '../main/store/sqlite';
import { MemoryKeyStore } from '../main/keys/key-store';
import { UnlockedSession } from '../main/people/key-vault';
import { generatePersonKey } from '../main/people/person-key';
import type { Role } from '../main/people/roles';
import { draftRecord, signRecord } from '../main/trust/chain-record';
import { ControlReader } from '../main/trust/control-state';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const ROWS = Number(arg('rows') ?? 100_000);
const REPEAT = Math.max(1, Number(arg('repeat') ?? 5));
const PROFILE = 'bench';

const dir = mkdtempSync(join(tmpdir(), 'bench-approvals-'));
const journal = openJournal(join(dir, 'journal.db'));
const repo = new SqliteDualControlRepository(journal);
const at = Date.now() - 60_000;
const person = (id: string, roles: Role[]) => {
  const pair = generatePersonKey();
  return { chain: { id, name: id, publicKey: pair.publicKey, roles }, session: new UnlockedSession(id, pair.publicKey, pair.privateKey, at) };
};
// The people and the policy as the control records' first entry, signed by the admin (its root).
const admin = person('admin', ['admin']);
const preparer = person('prep', ['preparer']);
const approvers = [person('a1', ['approver']), person('a2', ['approver'])];
const policy = { version: 1, rules: { bands: { '*': [{ atLeast: '1000', approvals: 2 }] }, newOrChangedPayee: 0 } };
const people = [admin, preparer, ...approvers].map((p) => p.chain);
await repo.appendChain(signRecord(draftRecord({ head: null, at, body: { kind: 'genesis', scope: PROFILE, people, policy } }), admin.session));
const reader = new ControlReader({ repository: repo, keyStore: new MemoryKeyStore(), profileId: PROFILE, environment: 'LIVE', where: 'the bench journal' });
const control = () => reader.read();

const batch = journal.createBatch({
  fileName: 'big.csv', sha256: 'f'.repeat(64), preparedBy: 'prep',
  rows: Array.from({ length: ROWS }, (_, i) => ({
    id: `row-${i}`, amountMinor: 1_000 + (i % 97), currencyCode: i % 3 === 0 ? 'USD' : 'EUR', accountName: `Payee ${i}`, accountNumber: `DE${String(i).padStart(20, '0')}`,
    paymentOperatorCode: 'EU_SEPA', paymentMethodCode: 'BANK_TRANSFER', emailAddress: `payee${i}@example.com`,
    ...(i % 10 === 0 ? { callbackUrl: `https://desk.example/callback/${i}` } : {}),
  })),
});
const subject = { kind: 'batch' as const, id: batch.id };
const signed = (await manifestFromJournal(journal, PROFILE, subject, 1))!;
await repo.addPreparation(signPreparation(preparer.session, { id: 'prep-1', manifest: signed, signedAt: Date.now() }));
for (const a of approvers) await repo.addApproval(signApproval(a.session, { id: `appr-${a.session.personId}`, manifest: signed, decision: 'approve', signedAt: Date.now() }));
const gate = journalApprovalGate({ journal, repository: repo, control });
// As the desk runs it: the payee book's flags (new payee / changed bank details) are worked out for every row too.
const payees = new SqlitePayeeRepository(journal);
const deskGate = journalApprovalGate({ journal, repository: repo, control, newOrChangedPayees: newOrChangedPayeeCount(payees), payeesMarker: () => payees.changeMarker() });

const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
const runs: Record<string, number[]> = {
  'control records read + checked': [], 'read rows + build manifest': [], 'canonical JSON + SHA-256': [], "preparer's signature (digest again)": [],
  'verifyApprovals (digest again, 2 signatures)': [], 'whole gate check': [], 'whole gate check with the payee book (desk)': [], 'clearance asked at one send': [],
};
for (let r = 0; r < REPEAT; r++) {
  let t = process.hrtime.bigint();
  const state = await control();
  runs['control records read + checked']!.push(ms(t));
  if (state.problem || !state.enforced) throw new Error(`expected dual control on and holding: ${state.problem?.message ?? 'off'}`);
  t = process.hrtime.bigint();
  const manifest = (await manifestFromJournal(journal, PROFILE, subject, 1))!;
  runs['read rows + build manifest']!.push(ms(t));
  t = process.hrtime.bigint();
  manifestDigest(manifest);
  runs['canonical JSON + SHA-256']!.push(ms(t));
  t = process.hrtime.bigint();
  const unprepared = preparationProblem(manifest, await repo.preparationsFor(subject), state.people);
  runs["preparer's signature (digest again)"]!.push(ms(t));
  if (unprepared) throw new Error(`expected the preparer's signature to hold: ${unprepared}`);
  t = process.hrtime.bigint();
  const verdict = verifyApprovals(manifest, await repo.approvalsFor(subject), state.people, state.policy);
  runs['verifyApprovals (digest again, 2 signatures)']!.push(ms(t));
  if (!verdict.ok) throw new Error(`expected the batch to pass: ${verdict.message}`);
  t = process.hrtime.bigint();
  const decision = await gate.check(subject);
  runs['whole gate check']!.push(ms(t));
  if (!decision.ok) throw new Error(`expected the gate to pass: ${decision.message}`);
  t = process.hrtime.bigint();
  const deskDecision = await deskGate.check(subject);
  runs['whole gate check with the payee book (desk)']!.push(ms(t));
  if (!deskDecision.ok || !deskDecision.clearance) throw new Error(`expected the desk's gate to pass: ${deskDecision.message}`);
  const row = journal.getPayment('payout', 'row-77')!;
  t = process.hrtime.bigint();
  for (let i = 0; i < 1000; i++) if (!(deskDecision.clearance.stillValid() && deskDecision.clearance.bodyFor(row))) throw new Error('the clearance should hold');
  runs['clearance asked at one send']!.push(ms(t) / 1000);
  if (r === 0) console.log(`${ROWS} rows, manifest ${([...manifestCanonicalPieces(manifest)].reduce((n, p) => n + Buffer.byteLength(p), 0) / 1024 / 1024).toFixed(1)} MiB canonical`);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fixed = (x: number) => (x < 10 ? x.toFixed(3) : x.toFixed(0));
for (const [stage, xs] of Object.entries(runs)) console.log(`${stage.padEnd(46)} median ${fixed(median(xs)).padStart(7)} ms   slowest ${fixed(Math.max(...xs)).padStart(7)} ms`);
console.log(`target: whole gate check < 1000 ms → ${median(runs['whole gate check']!) < 1000 ? 'met' : 'NOT met'}`);
journal.close();
rmSync(dir, { recursive: true, force: true });
