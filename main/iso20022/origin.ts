// What a payout keeps of the pain.001 it came from: its EndToEndId, InstrId, PmtInfId and the message's MsgId,
// name (MsgNmId) and creation time, in its details' `extra` (journaled with it at submission, exported as columns of
// the results CSV). The pain.002 report reads them back; MsgNmId marks a payout as one from a pain.001.
import type { PaymentRecord } from '../journal';

export const PAIN001_EXTRA = {
  endToEndId: 'EndToEndId',
  instrId: 'InstrId',
  pmtInfId: 'PmtInfId',
  msgId: 'MsgId',
  msgNmId: 'MsgNmId',
  creDtTm: 'CreDtTm',
  /** The payment group's requested execution date, as written (schedules/file-dates.ts reads it). */
  reqdExctnDt: 'ReqdExctnDt',
} as const;

/** The EndToEndId that says "none given" (ISO 20022 usage rule): never a payout id, may repeat, never looked up. */
export const NOT_PROVIDED_END_TO_END_ID = 'NOTPROVIDED';

export interface Pain001Origin {
  endToEndId: string;
  instrId: string | null;
  pmtInfId: string;
  msgId: string;
  msgNmId: string;
  creDtTm: string | null;
}

/** The pain.001 a payout came from, or null for a payout that did not come from one. */
export function pain001OriginOf(p: Pick<PaymentRecord, 'details'>): Pain001Origin | null {
  const extra = p.details?.['extra'];
  if (!extra || typeof extra !== 'object' || Array.isArray(extra)) return null;
  const text = (key: string): string | null => {
    const value = (extra as Record<string, unknown>)[key];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  const endToEndId = text(PAIN001_EXTRA.endToEndId);
  const msgNmId = text(PAIN001_EXTRA.msgNmId);
  const msgId = text(PAIN001_EXTRA.msgId);
  if (!endToEndId || !msgId || !msgNmId?.startsWith('pain.001.')) return null;
  return { endToEndId, instrId: text(PAIN001_EXTRA.instrId), pmtInfId: text(PAIN001_EXTRA.pmtInfId) ?? '', msgId, msgNmId, creDtTm: text(PAIN001_EXTRA.creDtTm) };
}
