// CLI: `history export`: the journal's payments (payouts and payins) as CSV through the UI's history
// service (main/desk/history.ts → main/csv/export.ts), with the filters of `payouts list`.
import { type Command, InvalidArgumentError } from 'commander';
import type { CliDeps } from './deps';
import { addFilterOptions, filtersFrom, writeOut, type FilterOptions } from './shared';

function kindOption(value: string): 'payout' | 'payin' {
  const kind = value.trim().toLowerCase();
  if (kind !== 'payout' && kind !== 'payin') throw new InvalidArgumentError('must be payout or payin');
  return kind;
}

export function registerHistoryCommands(program: Command, deps: CliDeps): void {
  const history = program.command('history').description('the payment history of this profile (from the journal)');

  addFilterOptions(history.command('export').description('every matching payment as CSV, oldest first'))
    .option('--kind <kind>', 'payout or payin (default: both)', kindOption)
    .option('--out <file>', 'write to this file instead of standard output')
    .option('--force', 'overwrite the --out file if it exists')
    .action(async (o: FilterOptions & { kind?: 'payout' | 'payin'; out?: string; force?: boolean }) => {
      const filters = filtersFrom(o, o.kind ? [o.kind] : undefined);
      const file = await deps.desk().call('history', 'export', { filters, sort: { field: 'createdAt', direction: 'asc' } });
      const rows = Math.max(0, file.content.split(/\r?\n/).filter(Boolean).length - 1);
      await writeOut(deps, o.out, o.force, file, { fileName: file.fileName, rows, filters });
    });
}
