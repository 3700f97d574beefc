// A statement of a closed period as issued: its figures in canonical JSON and their SHA-256. When the same period is
// built again later and a figure differs (a payout observed paid late, a return, a balance read that came in), the
// statement says "changed since issued" and which figures moved. The generation time and the lines' sentences are
// not figures; the lines' kinds and amounts are.
import type { StatementChange, StatementCurrency, StatementView } from '../../contract/api';
import { canonicalJson, sha256Hex } from '../approvals/canonical';

type Figures = Record<string, string>;

/** Every figure of a statement by a readable name ("EUR closing total"), as text. */
export function statementFigures(view: StatementView): Figures {
  const out: Figures = {};
  const put = (c: StatementCurrency, name: string, value: string | number | null | undefined) => {
    out[`${c.currencyCode} ${name}`] = value === null || value === undefined ? '—' : String(value);
  };
  for (const c of view.currencies) {
    for (const [edge, b] of [['opening', c.opening], ['closing', c.closing]] as const) {
      put(c, `${edge} available`, b?.available.amount);
      put(c, `${edge} reserved`, b?.reserved.amount);
      put(c, `${edge} read at`, b?.observedAt);
    }
    for (const [name, t] of [['payouts paid', c.paid], ['payouts failed', c.failed], ['payouts returned', c.returned], ['payins', c.payins]] as const) {
      put(c, `${name} count`, t.count);
      put(c, `${name} amount`, t.amount.amount);
    }
    put(c, 'fees', c.fees.amount);
    put(c, 'expected closing', c.expectedClosing?.amount);
    put(c, 'difference', c.difference?.amount);
    const kinds = new Map<string, string[]>();
    for (const l of c.lines) kinds.set(l.kind, [...(kinds.get(l.kind) ?? []), l.amount?.amount ?? '']);
    for (const [kind, amounts] of kinds) put(c, `line ${kind}`, amounts.join(' '));
  }
  return out;
}

export function figuresJson(view: StatementView): string {
  return canonicalJson({ from: view.from, to: view.to, figures: statementFigures(view) });
}

export const figuresDigest = (json: string): string => sha256Hex(Buffer.from(json, 'utf8'));

/** The figures that differ between the statement as issued and as built now; empty when it still holds. */
export function changesSince(issuedJson: string, now: StatementView): StatementChange[] {
  const issued = (JSON.parse(issuedJson) as { figures: Figures }).figures;
  const current = statementFigures(now);
  const names = [...new Set([...Object.keys(issued), ...Object.keys(current)])].sort();
  return names
    .filter((name) => (issued[name] ?? '—') !== (current[name] ?? '—'))
    .map((name) => ({ figure: name, issued: issued[name] ?? '—', now: current[name] ?? '—' }));
}
