// A profile's settings for ISO 20022 payment runs (the one optional `iso20022` field of a profile): which
// payment operator a pain.001 transaction is paid through, and the e-mail address a payout carries when the file
// names none for its creditor (the gateway needs one on every payout). Rules are tried in order; the first
// that matches a transaction decides. A profile without the field gets the default: SEPA → EU_SEPA.
import * as z from '../zod-mini';

/** What a rule looks at: the service level code (PmtTpInf/SvcLvl/Cd) or the country of the creditor agent's BIC. */
export const OPERATOR_RULE_KINDS = ['serviceLevel', 'bicCountry'] as const;
export type OperatorRuleKind = (typeof OPERATOR_RULE_KINDS)[number];

/** An addr-spec, checked as a payout's e-mail is (domain/payout.ts). */
const MAIL_ADDRESS = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+\.[^\s@<>(),;:"\\]+$/;

export const OperatorRuleSchema = z
  .strictObject({
    when: z.enum(OPERATOR_RULE_KINDS),
    /** A service level code (ExternalServiceLevel1Code: 1-4 letters or digits, e.g. SEPA, URGP) or a two-letter country. */
    is: z.string().check(z.trim(), z.toUpperCase(), z.regex(/^[A-Z0-9]{1,4}$/, 'must be a service level code such as SEPA, or a country code such as DE')),
    operator: z.string().check(z.trim(), z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be an operator code such as EU_SEPA (letters, digits, "_", "-", ".")')),
  })
  .check(
    z.superRefine((rule, ctx) => {
      if (rule.when === 'bicCountry' && !/^[A-Z]{2}$/.test(rule.is)) {
        ctx.addIssue({ code: 'custom', message: `a BIC country must be two letters such as DE, not "${rule.is}"`, path: ['is'] });
      }
    }),
  );
export type OperatorRule = z.output<typeof OperatorRuleSchema>;

export const Iso20022SettingsSchema = z.strictObject({
  operatorRules: z.array(OperatorRuleSchema).check(z.maxLength(50, 'at most 50 operator rules')),
  /** Used for a creditor without Cdtr/CtctDtls/EmailAdr; null: such a transaction is an error on its row. */
  fallbackEmail: z._default(
    z.nullable(z.string().check(z.trim(), z.maxLength(254), z.regex(MAIL_ADDRESS, 'fallback e-mail must be an address such as ap@example.com'))),
    null,
  ),
});
export type Iso20022Settings = z.output<typeof Iso20022SettingsSchema>;

export const DEFAULT_ISO20022_SETTINGS: Iso20022Settings = Object.freeze({
  operatorRules: [{ when: 'serviceLevel', is: 'SEPA', operator: 'EU_SEPA' }],
  fallbackEmail: null,
}) as Iso20022Settings;

/** What a rule can see of one transaction. */
export interface OperatorFacts {
  /** The transaction's service level codes, or its payment group's when it has none of its own. */
  serviceLevels: readonly string[];
  /** CdtrAgt/FinInstnId/BIC (v03) or BICFI (v09); null when the file names no creditor agent. */
  creditorAgentBic: string | null;
}

/** The country of a BIC: its 5th and 6th characters (BBBB CC LL [BBB]); null when it is not BIC-shaped. */
export function bicCountry(bic: string | null): string | null {
  if (!bic) return null;
  const compact = bic.trim().toUpperCase();
  return /^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(compact) ? compact.slice(4, 6) : null;
}

/** The operator of the first rule that matches, or null when none does. */
export function operatorFor(rules: readonly OperatorRule[], facts: OperatorFacts): string | null {
  const country = bicCountry(facts.creditorAgentBic);
  for (const rule of rules) {
    if (rule.when === 'serviceLevel' ? facts.serviceLevels.some((s) => s.toUpperCase() === rule.is) : country === rule.is) return rule.operator;
  }
  return null;
}

/** The rules as a person reads them: "SvcLvl SEPA → EU_SEPA; BIC country CH → CH_BANK". */
export function rulesText(rules: readonly OperatorRule[]): string {
  if (rules.length === 0) return 'none';
  return rules.map((r) => `${r.when === 'serviceLevel' ? 'service level' : 'BIC country'} ${r.is} → ${r.operator}`).join('; ');
}
