// The CLI's top-level commands and where each is defined. A command line loads only the module of the
// command it names (issue 26: a CLI that starts fast); the others are listed by name and description for
// help and for "did you mean". test/unit/cli/catalogue.test.ts checks these descriptions against the ones
// the modules register, so the two cannot drift apart.
import type { Command } from 'commander';
import type { CliDeps } from './deps';

export type RegisterCommands = (program: Command, deps: CliDeps) => void;

export interface CliArea {
  /** Top-level command names this module registers, with their descriptions. */
  readonly commands: Readonly<Record<string, string>>;
  load(): Promise<RegisterCommands>;
}

const TEAM = "this desk as one of a team's desks on the profile's team database";

export const CLI_AREAS: readonly CliArea[] = [
  { commands: { profiles: 'gateway profiles (one merchant on one gateway each)' }, load: async () => (await import('./profiles')).registerProfileCommands },
  { commands: { callbacks: "the profile's status-callback listener (the twin of Settings → Callback listener)" }, load: async () => (await import('./callbacks')).registerCallbackCommands },
  { commands: { keys: 'RSA signing keys of the current profile (kept in the OS keychain)' }, load: async () => (await import('./keys')).registerKeyCommands },
  { commands: { keyring: 'a keychain for a headless shell (SSH, container): eval "$(npx payout-desk keyring start)" once, "keyring stop" at the end' }, load: async () => (await import('./keyring')).registerKeyringCommands },
  { commands: { connect: 'check the connection: get a token, read merchant info, show the token claims (never the token)' }, load: async () => (await import('./connect')).registerConnectCommands },
  {
    commands: { 'sandbox-setup': 'make a working TEST profile for a running sandbox: profile, key in the keychain, key registered, connection checked' },
    load: async () => (await import('./sandbox-setup')).registerSandboxSetupCommand,
  },
  {
    commands: {
      balances: 'available and reserved balances per currency',
      currencies: 'currencies the gateway knows, with their decimals',
      operators: 'payment operators (banks, schemes) with their method and currencies',
    },
    load: async () => (await import('./lists')).registerListCommands,
  },
  { commands: { payouts: 'single payouts: create, get, list' }, load: async () => (await import('./payouts')).registerPayoutCommands },
  {
    commands: { overview: "today's and the last seven days' payouts per currency, outcomes, fees and balances (from the journal)" },
    load: async () => (await import('./overview')).registerOverviewCommands,
  },
  {
    commands: {
      statement: "a period statement per currency that reconciles with the gateway's balances (this month by default)",
      accounting: 'journal lines of a period for the ledger (generic CSV, Xero, QuickBooks), each movement exported once',
    },
    load: async () => {
      const { registerStatementCommands, registerAccountingCommands } = await import('./statement');
      return (program, deps) => {
        registerStatementCommands(program, deps);
        registerAccountingCommands(program, deps);
      };
    },
  },
  { commands: { history: 'the payment history of this profile (from the journal)' }, load: async () => (await import('./history')).registerHistoryCommands },
  { commands: { payins: 'payins: payment requests your customers pay into' }, load: async () => (await import('./payins')).registerPayinCommands },
  { commands: { audit: 'the append-only, hash-chained audit log of this profile' }, load: async () => (await import('./audit')).registerAuditCommands },
  {
    commands: {
      people: 'people of the profile, their roles and signing keys (dual control)',
      approvals: 'approvals and rejections of payouts and batches (dual control)',
      policy: 'the approval policy of the profile',
    },
    load: async () => (await import('./dual-control')).registerDualControlCommands,
  },
  {
    commands: { payees: 'the payee book: saved payees, changes of bank details under dual control, CSV import and export' },
    load: async () => (await import('./payees')).registerPayeeCommands,
  },
  {
    commands: { team: TEAM },
    load: async () => {
      const [desk, desks] = await Promise.all([import('./team-desk'), import('./team-desks')]);
      return (program, deps) => {
        desk.registerTeamDeskCommands(program, deps);
        desks.registerTeamDesksCommands(program, deps);
      };
    },
  },
  { commands: { batch: 'CSV batches: template, validate, submit, resume, status, export' }, load: async () => (await import('./batch-area')).registerBatchArea },
  {
    commands: { schedule: 'the calendar: payouts and batches released at their date, the funding forecast, and moving, cancelling or confirming a late release' },
    load: async () => (await import('./schedule')).registerScheduleCommands,
  },
  {
    commands: { recurring: 'recurring payouts: a payee paid an amount on the dates of a rule, each date its own scheduled payout made days ahead' },
    load: async () => (await import('./recurring')).registerRecurringCommands,
  },
];

const GLOBAL_WITH_VALUE = new Set(['--home', '--profile']);

/**
 * The top-level command a command line names: the first word that is not a global option (or, after
 * "help", the word it asks about). Undefined when there is none (bare --help, --version).
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return argv[i + 1];
    if (GLOBAL_WITH_VALUE.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith('-')) continue;
    return word === 'help' && argv[i + 1] !== undefined ? argv[i + 1] : word;
  }
  return undefined;
}
