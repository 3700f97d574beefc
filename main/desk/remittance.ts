// payouts:remittance and batches:remittance — remittance advice (main/remittance/) for a paid payout, or a page per
// payee for a batch's paid payouts, as a PDF to save or hand on. Each file made is audited with its SHA-256. Below,
// the same advice e-mailed to the payee.
import type { BatchRemittanceEmailOutcome, FileContent, RemittanceEmailView } from '../../contract/api';
import { deskActor } from '../audit/actor';
import type { RemittanceMailRecord } from '../journal/port';
import type { PaymentRecord } from '../journal/types';
import { isMailAddress, type Profile } from '../profiles/profile-schema';
import { batchAdvice, payoutAdvice } from '../remittance/advice';
import { adviceMail, newMessageId } from '../remittance/message';
import { sendAdviceMail, type MailJob, type MailJobResult } from '../remittance/outbox';
import { remittancePdf } from '../remittance/pdf';
import { sha256Hex } from '../approvals/canonical';
import type { CurrencyCache } from './currency-cache';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';
import { smtpSession } from './smtp';

const pdfFile = (fileName: string, pdf: Buffer): FileContent => ({ fileName, mimeType: 'application/pdf', content: pdf.toString('base64'), encoding: 'base64' });

export async function payoutRemittance(rt: DeskRuntime, currencies: CurrencyCache, profile: Profile, idPayout: string): Promise<FileContent> {
  const journal = await rt.journalFor(profile.id);
  const record = await journal.getPayment('payout', idPayout);
  if (!record) throw new DeskError('NOT_FOUND', `No payout with id ${idPayout} in this profile's journal`);
  const batch = record.batchId ? await journal.getBatch(record.batchId) : undefined;
  const advice = payoutAdvice(record, profile.name, currencies.decimalsOf(profile.id), batch?.fileName ?? null);
  const pdf = await remittancePdf([advice], `Remittance advice ${idPayout}`);
  await rt.audit(profile.id, { action: 'remittance.saved', subject: idPayout, details: { payouts: 1, payees: 1, sha256: sha256Hex(pdf) } });
  return pdfFile(`remittance-${idPayout}.pdf`, pdf);
}

export async function batchRemittance(rt: DeskRuntime, currencies: CurrencyCache, profile: Profile, batchId: string): Promise<FileContent & { payees: number; payouts: number; notPaid: number }> {
  const journal = await rt.journalFor(profile.id);
  const batch = await journal.getBatch(batchId);
  if (!batch) throw new DeskError('NOT_FOUND', `No batch with id ${batchId} in this profile's journal`);
  const { advices, notPaid } = batchAdvice(await journal.batchPayments(batchId), profile.name, currencies.decimalsOf(profile.id), batch.fileName);
  if (advices.length === 0) throw new DeskError('NOT_PAID', `No payout of batch ${batch.fileName} has been paid yet (${notPaid} in flight, failed or returned): there is no advice to give`);
  const pdf = await remittancePdf(advices, `Remittance advice ${batch.fileName}`);
  const payouts = advices.reduce((n, a) => n + a.payments.length, 0);
  await rt.audit(profile.id, { action: 'remittance.saved', subject: batchId, details: { payouts, payees: advices.length, notPaid, sha256: sha256Hex(pdf) } });
  return { ...pdfFile(`remittance-${batch.fileName.replace(/\.[^.]+$/, '')}-${batchId.slice(0, 8)}.pdf`, pdf), payees: advices.length, payouts, notPaid };
}

// ---- by e-mail (issue 28): payouts:emailRemittance, batches:emailRemittance, payouts:remittanceEmail ----
// The same advice, attached, mailed to the payee through the profile's SMTP server (desk/smtp.ts), once per payout
// (remittance/outbox.ts). The advice builder stays the one place that refuses a payout not paid or RETURNED.

/** The record as the screens and the CLI see it. */
export function emailView(r: RemittanceMailRecord): RemittanceEmailView {
  return {
    idPayout: r.payoutId,
    batchId: r.batchId,
    to: r.recipient,
    state: r.state,
    attempts: r.attempts,
    lastReply: r.lastReply,
    messageId: r.messageId,
    sends: r.sends,
    sentAt: r.sentAt === null ? null : new Date(r.sentAt).toISOString(),
    requestedBy: r.requestedBy,
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}

const NO_ADDRESS = 'NO_EMAIL_ADDRESS';
function noAddress(p: PaymentRecord): string {
  const given = p.emailAddress.trim();
  return `Payout ${p.id} to ${p.accountName} has ${given ? `"${given}", which is not one e-mail address` : 'no e-mail address'}: its advice cannot be e-mailed (save it with Remittance advice and send it another way)`;
}

/** Mails one payee's advice, and audits the outcome (remittance.emailed when sent; never the password or the PDF). */
async function mailOne(rt: DeskRuntime, profile: Profile, session: Awaited<ReturnType<typeof smtpSession>>, job: MailJob, force: boolean, subject: string): Promise<MailJobResult> {
  const result = await sendAdviceMail(
    { journal: await rt.journalFor(profile.id), transport: session.transport, actor: deskActor(), messageId: () => newMessageId(session.settings.from) },
    job,
    force,
  );
  if (result.outcome) {
    const o = result.outcome;
    const pdf = result.mail?.attachment?.content;
    await rt.audit(profile.id, {
      action: o.state === 'sent' ? 'remittance.emailed' : 'remittance.email-failed',
      subject,
      details: {
        to: job.recipient, payouts: result.mailed, state: o.state, attempts: o.attempts, reply: o.reply, messageId: o.messageId,
        via: `${session.settings.host}:${session.settings.port}`, ...(pdf ? { sha256: sha256Hex(pdf) } : {}), ...(force ? { force: true, resent: o.resent } : {}),
      },
    });
  }
  return result;
}

export async function emailPayoutRemittance(rt: DeskRuntime, currencies: CurrencyCache, profile: Profile, idPayout: string, force: boolean): Promise<RemittanceEmailView> {
  const journal = await rt.journalFor(profile.id);
  const record = await journal.getPayment('payout', idPayout);
  if (!record) throw new DeskError('NOT_FOUND', `No payout with id ${idPayout} in this profile's journal`);
  const batch = record.batchId ? await journal.getBatch(record.batchId) : undefined;
  // Refused here (NOT_PAID) for a payout not paid or RETURNED, before anything is claimed.
  const advice = payoutAdvice(record, profile.name, currencies.decimalsOf(profile.id), batch?.fileName ?? null);
  if (!isMailAddress(advice.payeeEmail)) throw new DeskError(NO_ADDRESS, noAddress(record));
  const session = await smtpSession(rt, profile);
  try {
    const result = await mailOne(rt, profile, session, {
      payouts: [record],
      batchId: null,
      recipient: advice.payeeEmail,
      build: async (_claimed, messageId) => adviceMail(advice, await remittancePdf([advice], `Remittance advice ${idPayout}`), `remittance-${idPayout}.pdf`, messageId),
    }, force, idPayout);
    const skip = result.skipped[0];
    if (skip) throw new DeskError(skip.blocker.code, skip.blocker.message);
    const o = result.outcome!;
    if (o.state === 'refused') throw new DeskError('EMAIL_REFUSED', `The mail server refused the remittance advice of payout ${idPayout} for ${advice.payeeEmail}: ${o.reply}. It was not delivered; the payout's detail keeps the reply.`);
    if (o.state === 'failed') throw new DeskError('EMAIL_FAILED', `The remittance advice of payout ${idPayout} could not be e-mailed to ${advice.payeeEmail} (${o.attempts} ${o.attempts === 1 ? 'attempt' : 'attempts'}): ${o.reply}`);
    const [mail] = await journal.remittanceMails([idPayout]);
    return emailView(mail!);
  } finally {
    session.close();
  }
}

export async function payoutRemittanceEmail(rt: DeskRuntime, profile: Profile, idPayout: string): Promise<RemittanceEmailView | null> {
  const [mail] = await (await rt.journalFor(profile.id)).remittanceMails([idPayout]);
  return mail ? emailView(mail) : null;
}

const SKIP_REASONS: Record<string, string> = {
  ALREADY_EMAILED: 'already e-mailed (Send again mails them once more)',
  [NO_ADDRESS]: 'no usable e-mail address on the payout',
  EMAIL_IN_PROGRESS: 'being e-mailed by another send right now',
  EMAIL_OUTCOME_UNKNOWN: 'an earlier send never finished and may have been delivered (Send again mails them)',
};

export async function emailBatchRemittance(rt: DeskRuntime, currencies: CurrencyCache, profile: Profile, batchId: string, force: boolean): Promise<BatchRemittanceEmailOutcome> {
  const journal = await rt.journalFor(profile.id);
  const batch = await journal.getBatch(batchId);
  if (!batch) throw new DeskError('NOT_FOUND', `No batch with id ${batchId} in this profile's journal`);
  const rows = await journal.batchPayments(batchId);
  const decimalsOf = currencies.decimalsOf(profile.id);
  // The same grouping as the batch's advice: one mail per payee, each payout paid (the builder leaves out the rest).
  const { advices, notPaid } = batchAdvice(rows, profile.name, decimalsOf, batch.fileName);
  if (advices.length === 0) throw new DeskError('NOT_PAID', `No payout of batch ${batch.fileName} has been paid yet (${notPaid} in flight, failed or returned): there is no advice to e-mail`);
  const session = await smtpSession(rt, profile);
  const byId = new Map(rows.map((p) => [p.id, p]));
  const skipped = new Map<string, string[]>();
  const skip = (code: string, id: string) => skipped.set(code, [...(skipped.get(code) ?? []), id]);
  const outcome: BatchRemittanceEmailOutcome = { mails: 0, payouts: 0, notPaid, refused: [], failed: [], skipped: [] };
  const stem = batch.fileName.replace(/\.[^.]+$/, '');
  try {
    for (const advice of advices) {
      const payouts = advice.payments.map((a) => byId.get(a.payoutId)!);
      if (!isMailAddress(advice.payeeEmail)) {
        for (const p of payouts) skip(NO_ADDRESS, p.id);
        continue;
      }
      const result = await mailOne(rt, profile, session, {
        payouts,
        batchId,
        recipient: advice.payeeEmail,
        build: async (claimed, messageId) => {
          // The payouts this send claimed (those mailed before are not mailed twice), grouped by the builder again.
          const mine = batchAdvice(claimed, profile.name, decimalsOf, batch.fileName).advices[0]!;
          const payee = mine.payee.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'payee';
          return adviceMail(mine, await remittancePdf([mine], `Remittance advice ${batch.fileName}`), `remittance-${stem}-${payee}.pdf`, messageId);
        },
      }, force, batchId);
      for (const s of result.skipped) skip(s.blocker.code, s.payoutId);
      if (!result.outcome) continue;
      if (result.outcome.state === 'sent') {
        outcome.mails++;
        outcome.payouts += result.mailed.length;
      } else {
        const views = (await journal.remittanceMails(result.mailed)).map(emailView);
        (result.outcome.state === 'refused' ? outcome.refused : outcome.failed).push(...views);
      }
    }
  } finally {
    session.close();
  }
  outcome.skipped = [...skipped].map(([code, idPayouts]) => ({ code, reason: SKIP_REASONS[code] ?? code, idPayouts }));
  return outcome;
}
