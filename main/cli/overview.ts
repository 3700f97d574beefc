// CLI: `overview` — the home screen's figures (overview:get) as a table: per currency, what the gateway accepted
// today and in the last seven days, how much of it failed or came back, fees, and the balance the desk last read.
import type { Command } from 'commander';
import type { OverviewView, PayoutActivity } from '../../contract/api';
import type { CliDeps } from './deps';
import { table } from './shared';

const rate = (percent: string | null) => (percent === null ? '-' : `${percent} %`);

function activityCells(a: PayoutActivity): string[] {
  return [`${a.sent.count} (${a.sent.amount.amount})`, String(a.failed.count), String(a.returned.count), String(a.inFlight.count), a.fees.amount, rate(a.failureRatePercent), rate(a.returnRatePercent)];
}

/** The figures as lines a person reads: one line per currency and period. */
export function overviewLines(view: OverviewView): string[] {
  if (view.currencies.length === 0) return ['Nothing sent in the last seven days and no balance read yet. Send a payout ("payouts create") or read the balances ("balances").'];
  const rows = view.currencies.flatMap((c) => [
    [c.currencyCode, 'today', ...activityCells(c.today), c.available?.amount ?? '-', c.pendingOutgoing.amount],
    ['', 'last 7 days', ...activityCells(c.lastSevenDays), '', ''],
  ]);
  return [
    `Payouts the gateway accepted since ${view.dayStarts.at(-1)} (today) and ${view.dayStarts[0]} (7 days), as the desk knows them at ${view.generatedAt}`,
    ...table([['CURRENCY', 'PERIOD', 'SENT', 'FAILED', 'RETURNED', 'IN FLIGHT', 'FEES', 'FAILURE RATE', 'RETURN RATE', 'AVAILABLE', 'TO SETTLE'], ...rows]),
  ];
}

export function registerOverviewCommands(program: Command, deps: CliDeps): void {
  program
    .command('overview')
    .description("today's and the last seven days' payouts per currency, outcomes, fees and balances (from the journal)")
    .action(async () => {
      const view = await deps.desk().call('overview', 'get', undefined);
      deps.print(overviewLines(view), view);
    });
}
