// Remittance advice by e-mail, once per payout (issue 28). Each payout's mail is a journal record (both back ends,
// store/remittance-mails.ts) claimed before any SMTP server is spoken to: a claim is one statement only one writer wins,
// so two desks of a team, or the app and the CLI on one desk, never both mail a payout's advice. The claimed record
// then follows the send: queued, retrying after a transient failure (a pause, then again), and sent, refused (the
// server's 5xx) or failed. A request for a payout already mailed is refused, saying when, unless forced (a resend).
//
// What the desk cannot see: a mail the server took and that bounced later (an unknown mailbox at the payee's own
// server) comes back as a mail to the From address, not to the desk. "sent" means the SMTP server took it.
import { randomUUID } from 'node:crypto';
import type { DeskJournal, RemittanceMailRecord, RemittanceMailState } from '../journal/port';
import type { PaymentRecord } from '../journal/types';
import { classifyMailError, type AdviceMail, type MailTransport } from './mail';

/** Pauses between attempts after a transient failure: four attempts within about 20 s (plus the servers' time). */
export const MAIL_BACKOFF_MS: readonly number[] = [2_000, 5_000, 12_000];

/**
 * A send unfinished this long is taken as interrupted (its desk stopped): longer than any send takes, its attempts,
 * pauses and time-outs together. Its outcome is unknown (the server may have taken the mail), so only a forced send
 * mails it again.
 */
export const MAIL_STALE_MS = 10 * 60_000;

export interface MailBlocker {
  code: 'ALREADY_EMAILED' | 'EMAIL_IN_PROGRESS' | 'EMAIL_OUTCOME_UNKNOWN';
  message: string;
}

const utc = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`;

/** Why this payout's advice is not mailed now, or null: never mailed, refused or failed before, or forced. */
export function mailBlocker(payoutId: string, record: RemittanceMailRecord | undefined, force: boolean, now: number): MailBlocker | null {
  if (!record || record.state === 'refused' || record.state === 'failed') return null;
  if (record.state === 'sent') {
    if (force) return null;
    return {
      code: 'ALREADY_EMAILED',
      message: `The remittance advice of payout ${payoutId} was already e-mailed to ${record.recipient} on ${utc(record.sentAt ?? record.updatedAt)} (by ${record.requestedBy}); nothing was sent again. Use Send again (--force) to mail it once more.`,
    };
  }
  if (now - record.updatedAt < MAIL_STALE_MS) {
    return { code: 'EMAIL_IN_PROGRESS', message: `The remittance advice of payout ${payoutId} is being e-mailed to ${record.recipient} now (last step ${utc(record.updatedAt)}, asked by ${record.requestedBy}); nothing more was sent.` };
  }
  if (force) return null;
  return {
    code: 'EMAIL_OUTCOME_UNKNOWN',
    message: `An e-mail of payout ${payoutId}'s remittance advice to ${record.recipient} started on ${utc(record.updatedAt)} and never finished (the desk stopped?): the server may have taken it. Ask the payee, or use Send again (--force) to mail it.`,
  };
}

export interface OutboxDeps {
  journal: Pick<DeskJournal, 'remittanceMails' | 'claimRemittanceMail' | 'recordRemittanceMail'>;
  /** The SMTP session, opened on first use (the caller closes it). */
  transport: () => Promise<MailTransport>;
  /** Who asks (the audit log's actor). */
  actor: string;
  /** A new Message-ID (message.ts newMessageId on the From address). */
  messageId: () => string;
  now?: () => number;
  backoffMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
}

/** One mail: paid payouts of one payee, and how to make the mail for those of them this send claims. */
export interface MailJob {
  payouts: readonly PaymentRecord[];
  batchId: string | null;
  recipient: string;
  build: (claimed: readonly PaymentRecord[], messageId: string) => Promise<AdviceMail>;
}

export interface MailJobResult {
  /** The payouts this mail advised (claimed), in the job's order. */
  mailed: string[];
  skipped: { payoutId: string; blocker: MailBlocker }[];
  /** Null when nothing was claimed (every payout skipped). */
  outcome: { state: Extract<RemittanceMailState, 'sent' | 'refused' | 'failed'>; reply: string; attempts: number; messageId: string; resent: number } | null;
  /** The mail as sent (the caller audits its PDF's SHA-256, never the PDF). */
  mail: AdviceMail | null;
}

export async function sendAdviceMail(deps: OutboxDeps, job: MailJob, force: boolean): Promise<MailJobResult> {
  const now = deps.now ?? Date.now;
  const backoff = deps.backoffMs ?? MAIL_BACKOFF_MS;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const ids = job.payouts.map((p) => p.id);
  const records = new Map((await deps.journal.remittanceMails(ids)).map((r) => [r.payoutId, r]));
  const skipped: MailJobResult['skipped'] = [];
  const claimed: PaymentRecord[] = [];
  const claim = randomUUID();
  const messageId = deps.messageId();
  let resent = 0;
  for (const p of job.payouts) {
    const record = records.get(p.id);
    const blocker = mailBlocker(p.id, record, force, now());
    if (blocker) {
      skipped.push({ payoutId: p.id, blocker });
      continue;
    }
    const won = await deps.journal.claimRemittanceMail({ payoutId: p.id, batchId: job.batchId, recipient: job.recipient, messageId, requestedBy: deps.actor, claim, at: now() }, record?.claim ?? null);
    if (!won) {
      // Another desk (or the CLI beside the app) claimed it between the read and the claim: it mails it.
      skipped.push({ payoutId: p.id, blocker: { code: 'EMAIL_IN_PROGRESS', message: `The remittance advice of payout ${p.id} was claimed by another send at the same moment; this one sent nothing for it.` } });
      continue;
    }
    if (record?.state === 'sent') resent++;
    claimed.push(p);
  }
  if (claimed.length === 0) return { mailed: [], skipped, outcome: null, mail: null };

  const write = async (state: RemittanceMailState, attempts: number, reply: string | null): Promise<void> => {
    for (const p of claimed) await deps.journal.recordRemittanceMail(p.id, claim, { state, attempts, lastReply: reply, at: now() });
  };
  const mailed = claimed.map((p) => p.id);
  let mail: AdviceMail;
  try {
    mail = await job.build(claimed, messageId);
  } catch (error) {
    const reply = `the advice could not be made: ${error instanceof Error ? error.message : String(error)}`;
    await write('failed', 0, reply);
    return { mailed, skipped, outcome: { state: 'failed', reply, attempts: 0, messageId, resent }, mail: null };
  }
  for (let attempt = 1; ; attempt++) {
    let reply: string;
    try {
      reply = (await (await deps.transport()).send(mail)).reply;
    } catch (error) {
      // The SMTP transport classifies its errors already (with the password cut out); anything else is read the same way.
      const failure = classifyMailError(error, null);
      const pause = backoff[attempt - 1];
      if (failure.kind === 'transient' && pause !== undefined) {
        await write('retrying', attempt, failure.reply);
        await sleep(pause);
        continue;
      }
      const state = failure.kind === 'refused' ? 'refused' : 'failed';
      await write(state, attempt, failure.reply);
      return { mailed, skipped, outcome: { state, reply: failure.reply, attempts: attempt, messageId, resent }, mail };
    }
    // Outside the try: the server took the mail, so a journal that fails to say so now is an error, never a retry.
    await write('sent', attempt, reply);
    return { mailed, skipped, outcome: { state: 'sent', reply, attempts: attempt, messageId, resent }, mail };
  }
}
