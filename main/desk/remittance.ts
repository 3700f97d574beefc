// payouts:remittance and batches:remittance — remittance advice (main/remittance/) for a paid payout, or a page per
// payee for a batch's paid payouts, as a PDF to save or hand on. Each file made is audited with its SHA-256.
import type { FileContent } from '../../contract/api';
import type { Profile } from '../profiles/profile-schema';
import { batchAdvice, payoutAdvice } from '../remittance/advice';
import { remittancePdf } from '../remittance/pdf';
import { sha256Hex } from '../approvals/canonical';
import type { CurrencyCache } from './currency-cache';
import type { DeskRuntime } from './runtime';
import { DeskError } from './services';

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
