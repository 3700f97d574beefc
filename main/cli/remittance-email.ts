// What `payouts remittance <id> --email` and `batch remittance <batchId> --email` print: whom the advice went to,
// the server's answer, and for a batch how many payees were mailed and which payouts were not, and why.
import type { BatchRemittanceEmailOutcome, RemittanceEmailView } from '../../contract/api';
import { CliUsageError } from './deps';
import { plural } from './shared';

/** --out and --email are two ways to hand the advice on: one per command. */
export function remittanceMode(o: { out?: string; email?: boolean }): 'out' | 'email' {
  if (o.out !== undefined && o.email) throw new CliUsageError('Give --out <file> or --email, not both (run the command twice for both)');
  if (o.out === undefined && !o.email) throw new CliUsageError('Give --out <file> to save the advice as a PDF, or --email to e-mail it to the payee');
  return o.email ? 'email' : 'out';
}

export function emailedLines(v: RemittanceEmailView): string[] {
  return [
    `Remittance advice of payout ${v.idPayout} e-mailed to ${v.to}${v.sends > 1 ? ` (sent ${v.sends} times in all)` : ''}.`,
    `  server: ${v.lastReply ?? '(no reply recorded)'}`,
    `  message id ${v.messageId ?? '-'}, ${plural(v.attempts, 'attempt')}, at ${v.sentAt ?? v.updatedAt}`,
    'The server took it; a bounce from the payee\'s own server would come back to the From address, not to the desk.',
  ];
}

export function batchEmailedLines(o: BatchRemittanceEmailOutcome): string[] {
  const lines = [`E-mailed remittance advice to ${plural(o.mails, 'payee')} (${plural(o.payouts, 'paid payout')}).`];
  if (o.notPaid > 0) lines.push(`  ${plural(o.notPaid, 'payout')} not paid left out (in flight, failed or returned)`);
  for (const r of o.refused) lines.push(`  REFUSED ${r.idPayout} to ${r.to}: ${r.lastReply ?? ''}`);
  for (const r of o.failed) lines.push(`  NOT SENT ${r.idPayout} to ${r.to}: ${r.lastReply ?? ''}`);
  for (const s of o.skipped) lines.push(`  skipped ${plural(s.idPayouts.length, 'payout')}: ${s.reason} (${s.idPayouts.join(', ')})`);
  return lines;
}
