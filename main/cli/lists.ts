// CLI: `balances`, `currencies`, `operators`. Amounts print as exact decimals of their currency;
// JSON carries both the decimal string and the minor units.
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { CliDeps } from './deps';
import { formatMinor } from '../domain/money';

function currencyList(value: string): string[] {
  const codes = value.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
  const bad = codes.filter((c) => !/^[A-Z]{3}$/.test(c));
  if (bad.length > 0) throw new InvalidArgumentError(`not currency codes: ${bad.join(', ')} (use e.g. EUR,USD)`);
  return codes;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

export function registerListCommands(program: Command, deps: CliDeps): void {
  program
    .command('balances')
    .description('available and reserved balances per currency')
    .option('--currencies <codes>', 'comma-separated currency codes (default: every currency the gateway lists)', currencyList)
    .action(async (o: { currencies?: string[] }) => {
      const p = deps.profile();
      const client = deps.context().gatewayFor(p.id);
      const codes = o.currencies ?? (await client.currencies()).map((c) => c.code);
      const balances = await client.balances(codes);
      const rows = [];
      for (const b of balances) {
        const decimals = await client.decimals(b.currencyCode);
        rows.push({
          currencyCode: b.currencyCode,
          available: formatMinor(b.availableMinor, decimals),
          availableMinor: b.availableMinor,
          ...(b.reservedMinor !== undefined ? { reserved: formatMinor(b.reservedMinor, decimals), reservedMinor: b.reservedMinor } : {}),
        });
      }
      const human = rows.length === 0
        ? [`No balances for ${codes.join(', ') || 'any currency'}`]
        : table([['CURRENCY', 'AVAILABLE', 'RESERVED'], ...rows.map((r) => [r.currencyCode, r.available, r.reserved ?? '-'])]);
      deps.print([`Balances of ${p.merchantCode} [${p.environment}] at ${new Date().toISOString()}`, ...human], { profile: p.id, asOf: new Date().toISOString(), balances: rows });
    });

  program
    .command('currencies')
    .description('currencies the gateway knows, with their decimals')
    .action(async () => {
      const p = deps.profile();
      const list = await deps.context().gatewayFor(p.id).currencies();
      deps.print(table([['CODE', 'DECIMALS', 'NAME'], ...list.map((c) => [c.code, String(c.decimals), c.name ?? ''])]), list);
    });

  program
    .command('operators')
    .description('payment operators (banks, schemes) with their method and currencies')
    .option('--currency <code>', 'only operators for this currency')
    .action(async (o: { currency?: string }) => {
      const p = deps.profile();
      const all = await deps.context().gatewayFor(p.id).paymentOperators();
      const wanted = o.currency?.trim().toUpperCase();
      const list = wanted ? all.filter((op) => !op.currencyCodes || op.currencyCodes.includes(wanted)) : all;
      deps.print(
        table([['CODE', 'METHOD', 'CURRENCIES', 'NAME'], ...list.map((op) => [op.code, op.paymentMethodCode ?? '', (op.currencyCodes ?? []).join(','), op.name ?? ''])]),
        list,
      );
    });
}
