// CLI: `profiles iso20022 show|set|reset <profile>`: how a profile reads ISO 20022 pain.001 payment runs (issue 27).
// Operator rules say which payment operator pays a transaction, by its service level (PmtTpInf/SvcLvl/Cd) or the
// country of its creditor agent's BIC, first match wins; the fallback e-mail goes on payouts whose creditor has none
// in the file. A transaction no rule maps is an error on its row. The settings are the profile's `iso20022` field
// (main/iso20022/settings.ts), changed through the same profile update as `profiles edit`.
import { type Command, InvalidArgumentError } from 'commander';
import type { CliDeps } from './deps';
import { CliUsageError, startsLight } from './deps';
import type { Profile } from '../profiles/profile-schema';
import { DEFAULT_ISO20022_SETTINGS, OPERATOR_RULE_KINDS, rulesText, type Iso20022Settings, type OperatorRule } from '../iso20022/settings';
import { actAs, actingOptions, type ActingOptions } from './acting';

/** "serviceLevel:SEPA=EU_SEPA" or "bicCountry:CH=CH_BANK" → a rule (checked again by the profile's schema). */
function rule(value: string, previous: OperatorRule[] = []): OperatorRule[] {
  const match = /^\s*([A-Za-z]+)\s*:\s*([^=\s]+)\s*=\s*(\S+)\s*$/.exec(value);
  const when = OPERATOR_RULE_KINDS.find((k) => k.toLowerCase() === match?.[1]?.toLowerCase());
  if (!match || !when) throw new InvalidArgumentError(`must look like serviceLevel:SEPA=EU_SEPA or bicCountry:DE=DE_BANK (kinds: ${OPERATOR_RULE_KINDS.join(', ')})`);
  return [...previous, { when, is: match[2]!.toUpperCase(), operator: match[3]! }];
}

const settingsOf = (p: Profile): Iso20022Settings => p.iso20022 ?? DEFAULT_ISO20022_SETTINGS;

function lines(p: Profile): string[] {
  const s = settingsOf(p);
  return [
    `Profile ${p.id} reads pain.001 payment runs with${p.iso20022 ? '' : ' the default settings'}:`,
    ...(s.operatorRules.length > 0 ? s.operatorRules.map((r, i) => `  rule ${i + 1}  ${rulesText([r])}`) : ['  no operator rule: every transaction is an error until one is added']),
    `  fallback e-mail  ${s.fallbackEmail ?? '(none: a creditor without Cdtr/CtctDtls/EmailAdr is an error on its row)'}`,
  ];
}

const json = (p: Profile): Record<string, unknown> => ({ profile: p.id, iso20022: settingsOf(p), default: p.iso20022 === undefined });

async function save(deps: CliDeps, before: Profile, next: Iso20022Settings, o: ActingOptions): Promise<Profile> {
  await actAs(deps, before.id, { named: o.as, file: o.passphraseFile, env: o.passphraseEnv }, '--passphrase-env <VAR> or --passphrase-file <file>');
  const { updateProfile } = await import('../desk/profiles');
  return updateProfile(deps.runtime(), before.id, { iso20022: next });
}

export function registerIso20022Commands(profiles: Command, deps: CliDeps): void {
  const iso = profiles.command('iso20022').description('how pain.001 payment runs are read: operator rules and a fallback e-mail');

  startsLight(iso
    .command('show <profile>')
    .description('the operator rules and fallback e-mail a profile reads pain.001 files with')
    .action((idOrName: string) => {
      const p = deps.profileContext().profiles.resolve(idOrName);
      deps.print(lines(p), json(p));
    }));

  actingOptions(iso
    .command('set <profile>')
    .description('set the operator rules (the --rule options given replace them all, tried in their order) and/or the fallback e-mail')
    .option('--rule <when:code=operator>', 'a rule, repeatable: serviceLevel:SEPA=EU_SEPA (PmtTpInf/SvcLvl/Cd) or bicCountry:DE=DE_BANK (country of the creditor agent\'s BIC)', rule)
    .option('--no-rules', 'remove every rule (then every transaction is an error until one is added)')
    .option('--fallback-email <address>', 'the e-mail for a payout whose creditor has none in the file ("none": no fallback, such a row is an error)'))
    .action(async (idOrName: string, o: ActingOptions & { rule?: OperatorRule[]; rules: boolean; fallbackEmail?: string }) => {
      const before = deps.context().profiles.resolve(idOrName);
      if (o.rule === undefined && o.rules && o.fallbackEmail === undefined) throw new CliUsageError('Nothing to change: give --rule, --no-rules or --fallback-email');
      if (o.rule !== undefined && !o.rules) throw new CliUsageError('--rule and --no-rules contradict each other');
      const now = settingsOf(before);
      const next: Iso20022Settings = {
        operatorRules: o.rule ?? (o.rules ? now.operatorRules : []),
        fallbackEmail: o.fallbackEmail === undefined ? now.fallbackEmail : o.fallbackEmail.trim().toLowerCase() === 'none' ? null : o.fallbackEmail,
      };
      const after = await save(deps, before, next, o);
      deps.print([`pain.001 settings of ${after.id} saved.`, ...lines(after)], json(after));
    });

  actingOptions(iso
    .command('reset <profile>')
    .description(`back to the default: ${rulesText(DEFAULT_ISO20022_SETTINGS.operatorRules)}, no fallback e-mail`))
    .action(async (idOrName: string, o: ActingOptions) => {
      const before = deps.context().profiles.resolve(idOrName);
      const after = await save(deps, before, { ...DEFAULT_ISO20022_SETTINGS, operatorRules: [...DEFAULT_ISO20022_SETTINGS.operatorRules] }, o);
      deps.print([`pain.001 settings of ${after.id} reset.`, ...lines(after)], json(after));
    });
}
