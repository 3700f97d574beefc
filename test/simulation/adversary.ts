// The adversary of the simulation (dual-control seeds only): what a person with the journal file or the team
// database's owner password can do to the rows behind the desk's back, and what a desk user with nobody
// unlocked can try through the desk. Nothing here goes through a desk service: rows are written as no desk would
// write them, signatures are made with a key that belongs to no person of the desk.
//
// The desk must not be fooled (invariants 7 and 8: nothing leaves that valid approvals under the control records
// the person's own steps made do not cover; every refusal says why), and it must not be stopped for good: what
// the adversary takes away it puts back (`restore`, and always before quiescence), and the desk carries on.
// What it cannot undo and is not meant to: a payout it marked "unknown outcome" is a re-send from then on (its
// approvals' own policy applies, and a hold no longer holds it: docs/threat-model.md says so).
import { signApproval } from '../../main/approvals/approval';
import { manifestFromJournal } from '../../main/approvals/gate';
import type { Subject } from '../../main/approvals/manifest';
import { payeeKey } from '../../main/domain/payee-key';
import type { PaymentRecord } from '../../main/journal';
import { UnlockedSession } from '../../main/people/key-vault';
import { encodeChainRecord } from '../../main/trust/chain-codec';
import { draftRecord, recordHash, signRecord, type ChainRecord } from '../../main/trust/chain-record';
import type { Result } from '../../contract/api';
import { SIM_PROFILE, type SimJournal } from './adapters';
import { adversaryPublicKey, adversarySession, trustedControl } from './dual-control';
import { payoutsOf } from './invariants';
import type { Person } from './person';
import type { DeskUserAct, TamperAct } from './steps';

/** The refusals that say an admin is needed (or the environment never changes), or that nothing may be done now. */
const REFUSED_FOR_CONTROL = new Set(['LOCKED', 'NOT_ALLOWED', 'CONTROL_BROKEN', 'CONTROL_UNREADABLE', 'ENVIRONMENT_FIXED']);

export interface AdversaryContext {
  readonly person: Person;
  now(): number;
  journal(): Promise<SimJournal>;
  call<T>(channel: string, args: unknown): Promise<Result<T> | null>;
  /** Nobody unlocked at the desk (the desk user), then the person unlocks again. */
  lockDesk(): void;
  unlockDesk(): void;
  log(line: string): void;
}

/** Payouts never tried: what the desk certainly has not sent yet. */
const untried = (payouts: PaymentRecord[]) => payouts.filter((p) => (p.state === 'QUEUED' || p.state === 'HELD') && p.attempts === 0);

export class Adversary {
  private forged = 0;

  constructor(private readonly ctx: AdversaryContext) {}

  async tamper(act: TamperAct, pick: number): Promise<void> {
    const journal = await this.ctx.journal();
    const rows = journal.tables.rows;
    const now = this.ctx.now();
    const log = (what: string) => this.ctx.log(`${now} adversary ${what}`);
    switch (act) {
      case 'flip-unknown':
      case 'flip-unknown-elsewhere':
      case 'edit-account': {
        const p = pickOf(untried(await payoutsOf(journal.port)), pick);
        if (!p) return;
        const elsewhere = act !== 'flip-unknown';
        const account = elsewhere ? `ATTACKER-${++this.forged}` : undefined;
        if (account && !this.ctx.person.originalAccount.has(p.id)) this.ctx.person.originalAccount.set(p.id, p.accountNumber);
        if (act === 'edit-account') await rows.setPayment(p.id, { accountNumber: account });
        else {
          await rows.setPayment(p.id, { state: 'UNKNOWN', unknownSince: now, accountNumber: account });
          this.ctx.person.flipped.add(p.id);
        }
        return log(`${act === 'edit-account' ? 'changed the account of' : 'marked'} unsent ${p.id}${act === 'edit-account' ? '' : ' UNKNOWN'}${account ? ` to pay ${account}` : ''}`);
      }
      case 'forge-approval': {
        const subject = pickOf(await this.pending(journal), pick);
        if (!subject) return;
        const policy = trustedControl(this.ctx.person.chain).policyAt(now);
        const manifest = await manifestFromJournal(journal.port, SIM_PROFILE, subject, policy?.version ?? 0);
        if (!manifest) return;
        // Signed with a key no person of the desk holds, in an approver's name.
        const forged = signApproval(impersonating('bob', adversarySession(now)), { id: `forged-${++this.forged}`, manifest, decision: 'approve', signedAt: now });
        await rows.insertApproval(forged);
        return log(`wrote an approval of ${subject.kind} ${subject.id} in Bob's name, signed with a key of its own`);
      }
      case 'forge-grant': {
        const stored = await journal.tables.dualControl.chain().catch(() => [] as ChainRecord[]);
        const head = stored.at(-1);
        if (!head) return;
        const record = signRecord(draftRecord({ head, at: now, body: { kind: 'roles', personId: 'dave', roles: ['approver', 'admin'] } }), impersonating('alice', adversarySession(now)));
        await rows.insertChain(record.seq, encodeChainRecord(record), record.hash);
        return log(`appended a control record making Dave an admin, in Alice's name, signed with a key of its own`);
      }
      case 'swap-key': {
        const stored = await rows.saved('control_chain');
        const first = stored.find((r) => Number(r['seq']) === 1);
        if (!first) return;
        const record = JSON.parse(String(first['record_json'])) as ChainRecord;
        if (record.body.kind !== 'genesis') return;
        for (const p of record.body.people) if (p.id === 'bob') p.publicKey = adversaryPublicKey();
        const hash = recordHash(record);
        await rows.rewriteChain(1, encodeChainRecord({ ...record, hash }), hash);
        return log("swapped Bob's public key in the first control record for one of its own (hash recomputed)");
      }
      case 'cut-chain':
      case 'drop-chain': {
        const stored = await rows.saved('control_chain');
        if (stored.length === 0 || (act === 'cut-chain' && stored.length < 2)) return;
        const keep = act === 'cut-chain' ? stored.length - 1 : 0;
        await rows.remove('control_chain', keep);
        return log(act === 'cut-chain' ? `cut the control records back to ${keep}` : 'deleted every control record');
      }
      case 'truncate-approvals': {
        const stored = await rows.saved('approvals');
        if (stored.length === 0) return;
        // The first copy is the one to put back: a second deletion saves what the first left.
        if (!this.ctx.person.takenAway.has('approvals')) this.ctx.person.takenAway.set('approvals', stored);
        await rows.remove('approvals');
        return log(`deleted every approval (${stored.length})`);
      }
      case 'legacy-person':
        await rows.insertLegacyPerson(`mallory-${++this.forged}`, 'Mallory', adversaryPublicKey(), ['approver', 'admin'], now);
        return log('added Mallory as an admin and approver to the tables from before the control records');
      case 'payee-version': {
        const p = pickOf(untried(await payoutsOf(journal.port)), pick);
        if (!p) return;
        await rows.insertPayeeVersion({ payeeId: `forged-${++this.forged}`, name: p.accountName, nameKey: payeeKey(p.accountName), account: `ATTACKER-${this.forged}`, email: p.emailAddress, emailKey: payeeKey(p.emailAddress), at: now });
        return log(`put a payee version in force for ${p.accountName} with another account, as no desk wrote it`);
      }
      case 'junk-notify':
        await rows.notify('dual_control', '9223372036854775807');
        await rows.notify('journal_changes', 'null');
        await rows.notify('journal_changes', '{"payments":[null],"batches":7}');
        await rows.notify('payees', 'not a number');
        return log('sent junk notifications');
      case 'restore':
        return this.restore(journal);
    }
  }

  /**
   * Puts back what was taken away: the control records exactly as the person's own steps made them (forged ones
   * gone, cut or deleted ones back, even when the person's steps added records meanwhile), and the approvals.
   * The desk must carry on from there.
   */
  async restore(journal?: SimJournal): Promise<void> {
    const j = journal ?? (await this.ctx.journal());
    const rows = j.tables.rows;
    await rows.remove('control_chain');
    for (const r of this.ctx.person.chain) await rows.insertChain(r.seq, encodeChainRecord(r), r.hash);
    const approvals = this.ctx.person.takenAway.get('approvals');
    if (approvals) await rows.putBack('approvals', approvals);
    this.ctx.person.takenAway.clear();
    this.ctx.log(`${this.ctx.now()} adversary put the control records back as the person's steps made them${approvals ? `, and ${approvals.length} approval(s)` : ''}`);
  }

  /** A desk user with nobody unlocked tries what needs an admin: each must be refused. */
  async deskUser(act: DeskUserAct): Promise<void> {
    const attempts: Record<DeskUserAct, [string, unknown]> = {
      'flip-environment': ['profiles:update', { profileId: SIM_PROFILE, environment: 'LIVE' }],
      'export-key': ['keys:backup', { keyId: 'active', passphrase: 'a backup passphrase', confirmed: true }],
      'replace-secret': ['keys:setSecret', { secret: 'a secret of the desk user' }],
      'repoint-database': ['settings:setTeamDatabase', { url: 'postgres://mallory@db.attacker.invalid/payouts', tls: 'verify-full' }],
      'remove-profile': ['profiles:remove', { profileId: SIM_PROFILE }],
    };
    const [channel, args] = attempts[act];
    this.ctx.lockDesk();
    try {
      const answer = await this.ctx.call(channel, args);
      this.ctx.log(`${this.ctx.now()} desk user (nobody unlocked) tried ${channel}: ${answer === null ? 'no answer' : answer.ok ? 'ok' : `${answer.error.code}: ${answer.error.message}`}`);
      // Refused because it needs an admin (or never changes): not for some other reason that happens to hold now.
      if (answer && (answer.ok || !REFUSED_FOR_CONTROL.has(answer.error.code))) {
        this.ctx.person.unrefused.push(`a desk user with nobody unlocked tried ${channel} (${act}): ${answer.ok ? 'done' : `refused, but not by dual control (${answer.error.code})`}`);
      }
    } finally {
      this.ctx.unlockDesk();
    }
  }

  /** Payouts and batches that may still leave for the first time. */
  private async pending(journal: SimJournal): Promise<Subject[]> {
    const subjects: Subject[] = [];
    const batches = new Set<string>();
    for (const p of untried(await payoutsOf(journal.port))) {
      if (p.batchId === null) subjects.push({ kind: 'payout', id: p.id });
      else batches.add(p.batchId);
    }
    for (const id of batches) subjects.push({ kind: 'batch', id });
    return subjects;
  }
}

function pickOf<T>(items: readonly T[], pick: number): T | undefined {
  return items[Math.floor(pick * items.length)];
}

/** A session that names `personId` as the signer but signs with `signer`'s key: a forgery. */
function impersonating(personId: string, signer: UnlockedSession): UnlockedSession {
  return Object.assign(Object.create(UnlockedSession.prototype) as UnlockedSession, { personId, publicKey: signer.publicKey, unlockedAt: signer.unlockedAt, sign: (bytes: Uint8Array) => signer.sign(bytes) });
}
