// How the team journal stores new payments (PgJournal.insertRows): the rows travel as ONE jsonb parameter,
// an array of tuples, and one statement writes their new intents, the payments (QUEUED) and a QUEUED
// status event each. On 100,000 rows (bench/pg-journal.ts) eighteen text arrays cost the desk about a
// second (pg's array literals, then copying them into the message) and the ids went three times; the
// tuples cost a quarter of that. jsonb, not json: json's ->> reads a row's text again for every field
// (2 s of server time for 19 fields), jsonb parses it once. What stays is the payments table's own cost
// (its indexes, the trigram one about half of it, the foreign key and the search_text column): no way
// of sending the rows changes that. bench/pg-journal.ts prints the floor: a bare COPY of the same 100,000 rows
// from files on the server took 3.8 s with the indexes (1.1 s with only the keys) where createBatch took 5.0 s,
// and COPY from the desk 4.5 s against 4.8 s the same minute (2026-11-29): not worth a dependency for it.
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../../audit/chain';
import { payeeKey } from '../../domain/payee-key';
import type { NewPayment, PaymentKind } from '../../journal/types';

/** What a batch sets on every row it stores (instead of copying each row to set them). */
export interface RowFill {
  batchId: string;
  preparedBy?: string | undefined;
}

/**
 * Positions in a row's tuple, in the order STORE_PAYMENTS_SQL reads them. amount_minor goes as a decimal
 * string, as it went in the bigint array before: exact for any integer the caller holds.
 */
function tuple(p: NewPayment, i: number, intentId: string | null, newIntentSource: string | null, fill: RowFill | undefined): unknown[] {
  return [
    p.id, intentId, newIntentSource, p.retryOf ?? null, fill ? fill.batchId : p.batchId ?? null,
    fill ? p.rowNumber ?? i + 1 : p.rowNumber ?? null, String(p.amountMinor), p.currencyCode, p.accountName, p.accountNumber,
    p.paymentOperatorCode, p.paymentMethodCode, p.emailAddress, p.callbackUrl ?? null, p.reference ?? null,
    payeeKey(p.accountName), payeeKey(p.emailAddress), p.details === undefined ? null : canonicalJson(p.details),
    (fill ? fill.preparedBy ?? p.preparedBy : p.preparedBy) ?? null,
  ];
}

/**
 * The json document of the rows: each payout without an intent gets a new one (its source from `source`),
 * a payin none.
 */
export function paymentRowsJson(kind: PaymentKind, rows: readonly NewPayment[], source: (p: NewPayment) => string, fill?: RowFill): string {
  return JSON.stringify(rows.map((p, i) => {
    if (kind !== 'payout') return tuple(p, i, null, null, fill);
    return p.intentId ? tuple(p, i, p.intentId, null, fill) : tuple(p, i, randomUUID(), source(p), fill);
  }));
}

/**
 * $1 kind, $2 the time (created_at, updated_at, observed_at), $3 paymentRowsJson, $4 the actor of the new
 * intents. Intents are inserted in key order (the primary key's b-tree then grows at its right edge instead
 * of at random pages); payments in the rows' order, which is the order of their pk, and their events in
 * pk order, as three statements in a row wrote them.
 */
export const STORE_PAYMENTS_SQL = `
  WITH t AS MATERIALIZED (
    SELECT r->>0 AS id, r->>1 AS intent_id, r->>2 AS intent_source, r->>3 AS retry_of, r->>4 AS batch_id, (r->>5)::int AS row_number,
      (r->>6)::bigint AS amount_minor, r->>7 AS currency_code, r->>8 AS account_name, r->>9 AS account_number, r->>10 AS payment_operator_code,
      r->>11 AS payment_method_code, r->>12 AS email_address, r->>13 AS callback_url, r->>14 AS reference, r->>15 AS payee_name_key,
      r->>16 AS payee_email_key, r->>17 AS details_json, r->>18 AS prepared_by, n
    FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS j (r, n)
  ),
  new_intents AS (
    INSERT INTO intents (id, source, created_at, actor)
    SELECT intent_id, intent_source, $2, $4 FROM t WHERE intent_source IS NOT NULL ORDER BY intent_id COLLATE "C"
  ),
  stored AS (
    INSERT INTO payments (kind, id, intent_id, retry_of, batch_id, row_number, amount_minor, currency_code, account_name, account_number,
      payment_operator_code, payment_method_code, email_address, callback_url, reference, state, status,
      created_at, updated_at, payee_name_key, payee_email_key, details_json, prepared_by)
    SELECT $1, id, intent_id, retry_of, batch_id, row_number, amount_minor, currency_code, account_name, account_number,
      payment_operator_code, payment_method_code, email_address, callback_url, reference, 'QUEUED', 'QUEUED',
      $2, $2, payee_name_key, payee_email_key, details_json, prepared_by
    FROM t ORDER BY n
    RETURNING pk, id
  )
  INSERT INTO status_events (kind, id, status, source, observed_at, raw_json)
  SELECT $1, id, 'QUEUED', 'local', $2, NULL FROM stored ORDER BY pk`;
