// The manifest: everything an approver signs about a payout or a batch, rebuilt from the journal's rows
// each time it is checked, so a row edited after approval gives another digest and voids the approvals.
// It holds every row's amount (a decimal string, with the decimals used to write it), currency, payee
// name, account, operator, method, e-mail and the callback address the create carries (every field of the
// body that leaves), the file's SHA-256 for a batch from a file, the totals per currency, who prepared it and
// the version of the policy it is approved under. Version 2 added the callback address. Version 3 is a scheduled
// subject's: its release time (instant, zone and wall time) is signed too, so moving it voids the approvals; and of a
// subject with rows confirmed as possible duplicates: their ids. A subject with neither keeps version 2 and the same
// digest as before.
import type { PayoutFields } from '../domain/payout';
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical';

export const MANIFEST_FORMAT = 'payout-desk/manifest';

export type SubjectKind = 'payout' | 'batch';
export interface Subject {
  kind: SubjectKind;
  id: string;
}

export const subjectText = (s: Subject): string => `${s.kind} ${s.id}`;
export const sameSubject = (a: Subject, b: Subject): boolean => a.kind === b.kind && a.id === b.id;

export interface ManifestRow {
  id: string;
  amount: string;
  currency: string;
  payeeName: string;
  account: string;
  operator: string;
  method: string;
  email: string;
  /** The callback address sent with the create; '' when none. */
  callbackUrl: string;
}

export interface ManifestTotal {
  currency: string;
  amount: string;
  count: number;
}

/** A scheduled subject's release time as the manifest signs it (main/schedules/execution.ts). */
export interface ManifestExecution {
  /** The instant, ISO 8601 in UTC. */
  at: string;
  zone: string;
  local: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: 2 | 3;
  profileId: string;
  subject: Subject;
  /** Person id of the preparer (null: prepared before people existed on this desk). */
  preparedBy: string | null;
  /** When it was journalled (epoch ms): no approval signed before it counts (no back-dated signatures). */
  preparedAt: number;
  /** SHA-256 of the batch's file; null for a single payout or a batch not read from a file. */
  fileSha256: string | null;
  /** Decimals each currency's amounts are written with: a change of decimals changes what is sent. */
  decimals: Record<string, number>;
  rows: ManifestRow[];
  totals: ManifestTotal[];
  policyVersion: number;
  /** Version 3 only: when it is released. */
  execution?: ManifestExecution;
  /**
   * Version 3 only: ids of the rows the preparer confirmed as possible duplicates of earlier payouts, in row order.
   * Signed, so a policy counting them (countPossibleDuplicates) rests on what the preparer saw, not on history a
   * database writer could thin out.
   */
  possibleDuplicates?: string[];
}

export type ManifestSourceRow = Pick<PayoutFields, 'amountMinor' | 'currencyCode' | 'accountName' | 'accountNumber' | 'paymentOperatorCode' | 'paymentMethodCode' | 'emailAddress'> & {
  id: string;
  callbackUrl: string | null;
};

/** Minor units (a bigint for totals, so they never lose a unit) as a decimal string with `decimals` places. */
export function decimalOf(minor: bigint | number, decimals: number): string {
  const negative = minor < 0;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}

/** A decimal string written with exactly `decimals` places back to minor units; throws on anything else. */
export function parseDecimal(text: string, decimals: number): number {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m || (m[2] ?? '').length !== decimals) throw new Error(`"${text}" is not an amount with ${decimals} decimals`);
  const minor = Number(`${m[1]}${m[2] ?? ''}`);
  if (!Number.isSafeInteger(minor)) throw new Error(`"${text}" is too large`);
  return minor;
}

/** Compares two plain decimal strings exactly (no floats): -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const parse = (t: string): [bigint, number] => {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(t.trim());
    if (!m) throw new Error(`"${t}" is not a plain decimal number`);
    const fraction = m[3] ?? '';
    return [BigInt(`${m[1]}${m[2]}${fraction}`), fraction.length];
  };
  const [x, xs] = parse(a);
  const [y, ys] = parse(b);
  const scale = Math.max(xs, ys);
  const xv = x * 10n ** BigInt(scale - xs);
  const yv = y * 10n ** BigInt(scale - ys);
  return xv < yv ? -1 : xv > yv ? 1 : 0;
}

/** One journal row as the manifest writes it, its amount with `decimals` places. */
export function manifestRowOf(r: ManifestSourceRow, decimals: number): ManifestRow {
  return {
    id: r.id, amount: decimalOf(r.amountMinor, decimals), currency: r.currencyCode, payeeName: r.accountName,
    account: r.accountNumber, operator: r.paymentOperatorCode, method: r.paymentMethodCode, email: r.emailAddress, callbackUrl: r.callbackUrl ?? '',
  };
}

export function buildManifest(input: {
  profileId: string;
  subject: Subject;
  preparedBy: string | null;
  preparedAt: number;
  fileSha256: string | null;
  rows: readonly ManifestSourceRow[];
  decimalsOf: (currencyCode: string) => number;
  policyVersion: number;
  /** A scheduled subject's release time (epoch ms, zone, wall time); none: released when approved. */
  execution?: { at: number; zone: string; local: string } | null | undefined;
  /** Rows confirmed as possible duplicates at submit (ids); none: absent from the manifest. */
  possibleDuplicates?: readonly string[] | undefined;
}): Manifest {
  const decimals: Record<string, number> = {};
  const sums = new Map<string, { minor: bigint; count: number }>();
  const rows = input.rows.map((r): ManifestRow => {
    const d = (decimals[r.currencyCode] ??= input.decimalsOf(r.currencyCode));
    const sum = sums.get(r.currencyCode) ?? { minor: 0n, count: 0 };
    sum.minor += BigInt(r.amountMinor);
    sum.count++;
    sums.set(r.currencyCode, sum);
    return manifestRowOf(r, d);
  });
  const totals = [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, s]) => ({ currency, amount: decimalOf(s.minor, decimals[currency]!), count: s.count }));
  const e = input.execution;
  const dupes = input.possibleDuplicates && input.possibleDuplicates.length > 0 ? [...input.possibleDuplicates] : null;
  return {
    format: MANIFEST_FORMAT, version: e || dupes ? 3 : 2, profileId: input.profileId, subject: { kind: input.subject.kind, id: input.subject.id },
    preparedBy: input.preparedBy, preparedAt: input.preparedAt, fileSha256: input.fileSha256, decimals, rows, totals, policyVersion: input.policyVersion,
    ...(e ? { execution: { at: new Date(e.at).toISOString(), zone: e.zone, local: e.local } } : {}),
    ...(dupes ? { possibleDuplicates: dupes } : {}),
  };
}

const ROW_KEYS = ['account', 'amount', 'callbackUrl', 'currency', 'email', 'id', 'method', 'operator', 'payeeName'] as const;

/** The canonical JSON around the rows: everything before them, and everything after. */
function aroundRows(m: Manifest): { head: string; tail: string } {
  const { rows: _rows, ...rest } = m;
  // The other keys in canonical order around an empty rows array; the rows are written into its place.
  const text = canonicalJson({ ...rest, rows: [] });
  const at = text.indexOf('"rows":[]') + '"rows":['.length;
  return { head: text.slice(0, at), tail: text.slice(at) };
}

/** The rows' canonical JSON in pieces of about 64 KB, their keys in canonical order directly. */
function* rowPieces(rows: readonly ManifestRow[]): Generator<string> {
  let piece = '';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    piece += i > 0 ? ',{' : '{';
    for (let j = 0; j < ROW_KEYS.length; j++) {
      const k = ROW_KEYS[j]!;
      const v = r[k];
      if (typeof v !== 'string') throw new Error(`manifest row ${i}: ${k} is not text`);
      piece += `${j > 0 ? ',' : ''}"${k}":${JSON.stringify(v)}`;
    }
    piece += '}';
    if (piece.length > 65_536) {
      yield piece;
      piece = '';
    }
  }
  yield piece;
}

/**
 * The manifest's canonical JSON (canonical.ts), written in pieces: the rows, which are almost all of it,
 * with their keys in canonical order directly, so a 100,000-row batch is not walked value by value.
 * Gives exactly canonicalJson(manifest) (a unit test holds them equal).
 */
export function* manifestCanonicalPieces(m: Manifest): Generator<string> {
  const { head, tail } = aroundRows(m);
  yield head;
  yield* rowPieces(m.rows);
  yield tail;
}

/** SHA-256 (hex) of the manifest's canonical bytes: what an approval names and signs. */
export function manifestDigest(manifest: Manifest): string {
  return manifestDigests(manifest, [{}])[0]!;
}

/**
 * The digests of the manifest with each variant of its header fields (policy version, preparation time), the
 * rows written once for all of them: the gate needs the approvals' digest and the preparer's at each check, and
 * the rows are almost all of the work.
 */
export function manifestDigests(manifest: Manifest, variants: readonly Partial<Pick<Manifest, 'policyVersion' | 'preparedAt'>>[]): string[] {
  const hashes = variants.map(() => createHash('sha256'));
  const around = variants.map((v) => aroundRows({ ...manifest, ...v }));
  around.forEach((a, i) => hashes[i]!.update(a.head, 'utf8'));
  for (const piece of rowPieces(manifest.rows)) for (const h of hashes) h.update(piece, 'utf8');
  around.forEach((a, i) => hashes[i]!.update(a.tail, 'utf8'));
  return hashes.map((h) => h.digest('hex'));
}
