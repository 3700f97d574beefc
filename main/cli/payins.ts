// CLI: `payins options|create|get|account-data|share-token|link|links`, over the UI's payins service
// (main/desk/payins.ts): a payin is journalled (id fixed) before it is sent, like a payout.
// `share-token` and `link` print the only tokens the design lets out, each limited to one payin id
// (PAYIN_INFO; PAYIN_CREATE for exactly the link's money), created on that explicit command, printed
// once, never stored or logged.
import { InvalidArgumentError, type Command } from 'commander';
import { PAYMENT_LINK_HOURS, PAYMENT_LINK_STATE_WORDS, type JsonValue, type PayinInput, type PayinView, type PaymentLinkInput } from '../../contract/api';
import type { CliDeps } from './deps';
import { currencyCode, intOption, table } from './shared';

function payinLines(p: PayinView): string[] {
  const a = p.account;
  return [
    `Payin ${p.idPayin}  ${p.status}${p.final ? ' (final)' : ''}${p.isTest ? '  TEST' : ''}`,
    `  Requested: ${p.requested.amount} ${p.requested.currencyCode}${p.toPay ? `   to pay: ${p.toPay.amount} ${p.toPay.currencyCode}` : ''}   method ${p.paymentMethodCode}`,
    ...(a ? [`  Pay into:  ${a.accountName}, account ${a.accountNumber}, ${a.bankName} (${a.bankCode})`] : ['  Pay into:  (no account data from the gateway yet)']),
    ...(p.reference ? [`  Reference: ${p.reference}`] : []),
    ...(p.expireAt ? [`  Expires:   ${p.expireAt}`] : []),
    ...(p.returnUrl ? [`  Return to: ${p.returnUrl}`] : []),
    `  Created:   ${p.createdAt}`,
    'Status history:',
    ...p.events.map((e) => `  ${e.observedAt}  ${e.status.padEnd(12)} ${e.source}`),
  ];
}

/** Nested JSON as indented "key: value" lines for people. */
function jsonLines(value: JsonValue, indent = '  '): string[] {
  if (value === null || typeof value !== 'object') return [`${indent}${String(value)}`];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) =>
    v !== null && typeof v === 'object' ? [`${indent}${k}:`, ...jsonLines(v, `${indent}  `)] : [`${indent}${k}: ${v === null ? '-' : String(v)}`],
  );
}

function validHours(value: string): number {
  const hours = intOption('--valid-hours')(value);
  if (hours < PAYMENT_LINK_HOURS.min || hours > PAYMENT_LINK_HOURS.max) throw new InvalidArgumentError(`must be from ${PAYMENT_LINK_HOURS.min} to ${PAYMENT_LINK_HOURS.max} hours (30 days)`);
  return hours;
}

export function registerPayinCommands(program: Command, deps: CliDeps): void {
  const payins = program.command('payins').description('payins: payment requests your customers pay into');

  payins
    .command('options')
    .description('payment methods and operators the gateway offers for an amount')
    .requiredOption('--amount <decimal>', 'amount in major units, a plain decimal such as 50.00')
    .requiredOption('--currency <code>', 'currency code, e.g. EUR', currencyCode)
    .action(async (o: { amount: string; currency: string }) => {
      const options = await deps.desk().call('payins', 'options', { money: { amount: o.amount.trim(), currencyCode: o.currency } });
      const rows = options.flatMap((m) => m.operators.map((op) => [m.paymentMethodCode, op.code, op.name]));
      deps.print(rows.length === 0 ? [`No payment options for ${o.amount} ${o.currency}.`] : table([['METHOD', 'OPERATOR', 'NAME'], ...rows]), options);
    });

  payins
    .command('create')
    .description('journal and send a payin; prints the account the customer pays into')
    .requiredOption('--amount <decimal>', 'amount in major units, a plain decimal such as 50.00')
    .requiredOption('--currency <code>', 'currency code, e.g. EUR', currencyCode)
    .requiredOption('--operator <code>', 'payment operator code (see "payins options")')
    .requiredOption('--account-name <name>', 'customer name')
    .requiredOption('--account-number <number>', 'customer account number')
    .requiredOption('--email <address>', 'customer e-mail address')
    .option('--method <code>', 'payment method code', 'VAPAY')
    .option('--callback-url <url>', 'status callback URL (default: the profile setting)')
    .option('--return-url <url>', 'where the customer returns after paying')
    .option('--id <idPayin>', 'payin id (default: a new UUID); the same id is never sent twice')
    .action(async (o: { amount: string; currency: string; operator: string; accountName: string; accountNumber: string; email: string; method: string; callbackUrl?: string; returnUrl?: string; id?: string }) => {
      const input: PayinInput = {
        amount: o.amount.trim(), currencyCode: o.currency, paymentMethodCode: o.method, paymentOperatorCode: o.operator,
        accountName: o.accountName, accountNumber: o.accountNumber, emailAddress: o.email,
        ...(o.callbackUrl ? { callbackUrl: o.callbackUrl } : {}), ...(o.returnUrl ? { returnUrl: o.returnUrl } : {}), ...(o.id !== undefined ? { idPayin: o.id } : {}),
      };
      const payin = await deps.desk().call('payins', 'create', input);
      deps.print(payinLines(payin), payin);
    });

  payins
    .command('get <idPayin>')
    .description('a payin with its status history (read from the gateway while it is not final)')
    .action(async (idPayin: string) => {
      const payin = await deps.desk().call('payins', 'get', { idPayin });
      deps.print(payinLines(payin), payin);
    });

  payins
    .command('account-data <idPayin>')
    .description("the customer's account data the gateway holds for a payin")
    .action(async (idPayin: string) => {
      const data = await deps.desk().call('payins', 'accountData', { idPayin });
      deps.print([`Account data of payin ${idPayin}:`, ...jsonLines(data)], data);
    });

  payins
    .command('share-token <idPayin>')
    .description('a token allowing only PAYIN_INFO for this one payin, for client-side code; printed once, never stored')
    .requiredOption('--validity <secs>', 'validity in seconds (60-86400)', intOption('validity'))
    .action(async (idPayin: string, o: { validity: number }) => {
      const shared = await deps.desk().call('payins', 'shareToken', { idPayin, validitySecs: o.validity });
      deps.print(
        [`Token for payin ${shared.idPayin} (PAYIN_INFO only), valid until ${shared.expiresAt}. It is shown once and not stored:`, shared.token],
        shared,
      );
    });

  payins
    .command('link')
    .description('a payment link: a new payin id and a token your customer uses to create and pay exactly that payin; printed once, never stored')
    .requiredOption('--amount <decimal>', 'amount in major units, a plain decimal such as 25.00')
    .requiredOption('--currency <code>', 'currency code, e.g. EUR', currencyCode)
    .option('--valid-hours <hours>', `how long the link works, ${PAYMENT_LINK_HOURS.min}-${PAYMENT_LINK_HOURS.max} hours (default ${PAYMENT_LINK_HOURS.default})`, validHours)
    .option('--reference <text>', 'a reference the customer sees, e.g. an invoice number')
    .action(async (o: { amount: string; currency: string; validHours?: number; reference?: string }) => {
      const input: PaymentLinkInput = {
        amount: o.amount.trim(), currencyCode: o.currency,
        ...(o.validHours !== undefined ? { validityHours: o.validHours } : {}), ...(o.reference !== undefined ? { reference: o.reference } : {}),
      };
      const link = await deps.desk().call('payins', 'createLink', input);
      deps.print(
        [
          `Payment link for ${link.money.amount} ${link.money.currencyCode}: payin ${link.idPayin}, valid until ${link.expiresAt}.`,
          'Send the customer the text between the lines. The token is shown once and not stored:',
          '----',
          link.shareText,
          '----',
          `Follow it with: payins links (or payins get ${link.idPayin})`,
        ],
        link,
      );
    });

  payins
    .command('links')
    .description('the payment links issued, newest first, with where each stands (those waiting are checked with the gateway)')
    .option('--limit <n>', 'how many (1-200, default 50)', intOption('limit'))
    .action(async (o: { limit?: number }) => {
      const links = await deps.desk().call('payins', 'links', o.limit !== undefined ? { limit: o.limit } : {});
      const rows = links.map((l) => [l.idPayin, `${l.money.amount} ${l.money.currencyCode}`, PAYMENT_LINK_STATE_WORDS[l.state], l.expiresAt, l.reference ?? '']);
      deps.print(links.length === 0 ? ['No payment link yet: make one with payins link --amount 25.00 --currency EUR.'] : table([['PAYIN', 'AMOUNT', 'STATE', 'VALID UNTIL', 'REFERENCE'], ...rows]), links);
    });
}
