// A statement as an ISO 20022 camt.053 (bank-to-customer statement, version 001.08), for ERPs that import bank
// statements: one Stmt per currency, the booked balance at the period's start (OPBD) and end (CLBD), one entry per
// movement of the period (a failed payout moved nothing and has none). The balances are the ones at the period's
// edges, derived from the desk's balance reads and what moved between a read and the edge, so opening plus the
// entries is the closing. A difference the desk cannot explain becomes an entry of its own that says so: an
// importer checks that a statement adds up, and the difference must show, not vanish. Built with xmlbuilder2.
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import type { StatementCurrency, StatementView } from '../../contract/api';
import { formatMinor, parseMinor } from '../domain/money';
import { exactSum } from '../desk/convert';
import type { Movement, MovementKind } from './movements';

export const CAMT053_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';

/** Bank transaction codes (domain, family, sub-family) of each kind of movement. */
const CODES: Record<Exclude<MovementKind, 'failed'>, [string, string, string]> = {
  paid: ['PMNT', 'ICDT', 'OTHR'],
  fee: ['ACMT', 'MDOP', 'CHRG'],
  returned: ['PMNT', 'ICDT', 'RRTN'],
  payin: ['PMNT', 'RCDT', 'OTHR'],
};

export interface Camt053Account {
  /** The merchant's code at the gateway: with the currency, the statement's account id. */
  merchantCode: string;
  name: string;
}

function amount(parent: XMLBuilder, tag: string, minor: number, code: string, decimals: number): void {
  parent.ele(tag, { Ccy: code }).txt(formatMinor(Math.abs(minor), decimals));
  parent.ele('CdtDbtInd').txt(minor < 0 ? 'DBIT' : 'CRDT');
}

function balance(stmt: XMLBuilder, type: 'OPBD' | 'CLBD', minor: number, code: string, decimals: number, at: string): void {
  const bal = stmt.ele('Bal');
  bal.ele('Tp').ele('CdOrPrtry').ele('Cd').txt(type);
  amount(bal, 'Amt', minor, code, decimals);
  bal.ele('Dt').ele('DtTm').txt(at);
}

function entry(stmt: XMLBuilder, deltaMinor: number, code: string, decimals: number, at: string, codes: [string, string, string], ref: string | null, info: string): void {
  const ntry = stmt.ele('Ntry');
  amount(ntry, 'Amt', deltaMinor, code, decimals);
  ntry.ele('Sts').ele('Cd').txt('BOOK');
  ntry.ele('BookgDt').ele('DtTm').txt(at);
  ntry.ele('ValDt').ele('DtTm').txt(at);
  const domain = ntry.ele('BkTxCd').ele('Domn');
  domain.ele('Cd').txt(codes[0]);
  const family = domain.ele('Fmly');
  family.ele('Cd').txt(codes[1]);
  family.ele('SubFmlyCd').txt(codes[2]);
  if (ref) ntry.ele('NtryDtls').ele('TxDtls').ele('Refs').ele('EndToEndId').txt(ref);
  ntry.ele('AddtlNtryInf').txt(info);
}

/** The balance at the period's edges in minor units: the reads moved by what the lines say happened in between. */
function edges(c: StatementCurrency, decimals: number): { opening: number; closing: number } | null {
  if (!c.opening || !c.closing || !c.expectedClosing) return null;
  const minor = (a: string) => parseMinor(a, decimals);
  const add = (a: number, b: number) => exactSum(a, b, c.currencyCode, 'statement file');
  const line = (kind: string) => c.lines.filter((l) => l.kind === kind && l.amount).reduce((t, l) => add(t, minor(l.amount!.amount)), 0);
  return { opening: add(minor(c.opening.total.amount), line('beforePeriod')), closing: add(minor(c.closing.total.amount), -line('afterPeriod')) };
}

export async function statementCamt053(view: StatementView, entries: ReadonlyMap<string, readonly Movement[]>, decimalsOf: (code: string) => number, account: Camt053Account, messageId: string): Promise<string> {
  // Loaded when a file is made: the CLI starts without it.
  const { create } = await import('xmlbuilder2');
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(CAMT053_NAMESPACE, 'Document');
  const root = doc.ele('BkToCstmrStmt');
  const header = root.ele('GrpHdr');
  header.ele('MsgId').txt(messageId);
  header.ele('CreDtTm').txt(view.generatedAt);
  for (const c of view.currencies) {
    const decimals = decimalsOf(c.currencyCode);
    const at = edges(c, decimals);
    // Without a balance at both ends there is no statement an importer could check: left out (the PDF and CSV say why).
    if (!at) continue;
    const moves = (entries.get(c.currencyCode) ?? []).filter((e) => e.kind !== 'failed');
    const stmt = root.ele('Stmt');
    stmt.ele('Id').txt(`${messageId}-${c.currencyCode}`);
    stmt.ele('CreDtTm').txt(view.generatedAt);
    const period = stmt.ele('FrToDt');
    period.ele('FrDtTm').txt(view.from);
    period.ele('ToDtTm').txt(view.to);
    const acct = stmt.ele('Acct');
    acct.ele('Id').ele('Othr').ele('Id').txt(`${account.merchantCode}-${c.currencyCode}`);
    acct.ele('Ccy').txt(c.currencyCode);
    acct.ele('Nm').txt(account.name);
    balance(stmt, 'OPBD', at.opening, c.currencyCode, decimals, view.from);
    balance(stmt, 'CLBD', at.closing, c.currencyCode, decimals, view.to);
    const credits = moves.filter((e) => e.deltaMinor > 0);
    const debits = moves.filter((e) => e.deltaMinor < 0);
    const summary = stmt.ele('TxsSummry');
    for (const [tag, list] of [['TtlCdtNtries', credits], ['TtlDbtNtries', debits]] as const) {
      const total = summary.ele(tag);
      total.ele('NbOfNtries').txt(String(list.length));
      total.ele('Sum').txt(formatMinor(Math.abs(list.reduce((t, e) => exactSum(t, e.deltaMinor, c.currencyCode, 'statement file'), 0)), decimals));
    }
    for (const e of moves) {
      const codes = CODES[e.kind as Exclude<MovementKind, 'failed'>];
      entry(stmt, e.deltaMinor, c.currencyCode, decimals, new Date(e.at).toISOString(), codes, e.paymentId, e.kind === 'fee' ? `Fee of payout ${e.paymentId}` : `${e.kind === 'payin' ? 'Payin' : 'Payout'} ${e.paymentId}`);
    }
    const difference = c.difference ? parseMinor(c.difference.amount, decimals) : 0;
    if (difference !== 0) entry(stmt, difference, c.currencyCode, decimals, view.to, ['ACMT', 'MDOP', 'OTHR'], null, "Difference not explained by this desk's payments (see the statement's notes)");
  }
  return doc.end({ prettyPrint: true });
}
