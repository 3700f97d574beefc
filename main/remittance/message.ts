// The words of a remittance advice mail: a subject and a short plain-text body saying what the attached PDF says
// (who paid, how much, which payments). Plain text only: the PDF is the advice; the body is what a mail client shows
// before anyone opens it.
import { randomUUID } from 'node:crypto';
import type { RemittanceAdvice } from './advice';
import type { AdviceMail } from './mail';

const when = (iso: string) => `${iso.slice(0, 10)}`;

/** A Message-ID on the sender's domain, made before the send so the record can name it whatever happens. */
export function newMessageId(from: string): string {
  const domain = from.slice(from.lastIndexOf('@') + 1) || 'payout-desk.invalid';
  return `<remittance.${randomUUID()}@${domain}>`;
}

export function adviceMail(advice: RemittanceAdvice, pdf: Buffer, fileName: string, messageId: string): AdviceMail {
  const one = advice.payments.length === 1 ? advice.payments[0]! : null;
  const total = advice.totals.map((t) => `${t.amount} ${t.currencyCode}`).join(' and ');
  const subject = one
    ? `Remittance advice from ${advice.payer}: ${one.amount} ${one.currencyCode} paid${one.reference ? ` (${one.reference})` : ''}`
    : `Remittance advice from ${advice.payer}: ${advice.payments.length} payments, ${total}`;
  const lines = [
    `Dear ${advice.payee},`,
    '',
    one
      ? `${advice.payer} has paid you ${one.amount} ${one.currencyCode} into your account ending ${advice.account}.`
      : `${advice.payer} has paid you ${advice.payments.length} payments, ${total} in all, into your account ending ${advice.account}.`,
    '',
    ...advice.payments.map((p) => `  ${when(p.paidAt)}  ${p.amount} ${p.currencyCode}  payment id ${p.payoutId}${p.reference ? `  reference ${p.reference}` : ''}`),
    '',
    'The attached remittance advice (PDF) lists each payment. Please quote the payment id and the reference when you ask about one.',
    '',
    advice.payer,
  ];
  return {
    to: { name: advice.payee, address: advice.payeeEmail },
    subject,
    text: `${lines.join('\n')}\n`,
    attachment: { fileName, content: pdf },
    messageId,
    payoutIds: advice.payments.map((p) => p.payoutId),
  };
}
