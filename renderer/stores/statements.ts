// Statements: a period's reconciliation per currency, from the opening balance read to the closing one
// (statements:get). Making one may ask the gateway for its balance now (a period that ends now), so it runs on
// the user's "Make statement" only, and once when the screen first opens; never in the background.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { AccountingAccounts, AccountingExport, AccountingFormat, FileContent, Result, StatementFormat, StatementQuery, StatementView } from '../../contract/api';
import { desk } from '../desk';
import { errorFromException, type DeskError } from '../lib/errors';
import { latestRequests } from '../lib/latest-request';
import { customPeriod, dayText, presetPeriod, type StatementPeriod, type StatementPreset } from '../lib/statement-period';
import { registerAreaStore } from './session';

/** The currency select's "All currencies". */
export const ALL_CURRENCIES = '*';

export const useStatementsStore = defineStore('statements', () => {
  const preset = ref<StatementPreset>('this-month');
  const firstDay = ref(dayText(new Date(new Date().getFullYear(), new Date().getMonth(), 1)));
  const lastDay = ref(dayText(new Date()));
  const currency = ref<string>(ALL_CURRENCIES);
  /** Every currency a statement of this profile has shown: what the currency select offers. */
  const knownCurrencies = ref<string[]>([]);

  const view = shallowRef<StatementView | null>(null);
  /** The period and currency of the statement shown: what Export files, whatever the picker stands on since. */
  const shownQuery = shallowRef<StatementQuery | null>(null);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<DeskError | null>(null);
  // Another "Make statement" (another period or currency) replaces one still on its way; a profile switch drops all.
  const requests = latestRequests();

  /** The period the picker stands on now, or what is wrong with the custom days. */
  const period = computed((): StatementPeriod | { problem: string } =>
    preset.value === 'custom' ? customPeriod(firstDay.value, lastDay.value) : presetPeriod(preset.value),
  );
  const problem = computed(() => ('problem' in period.value ? period.value.problem : null));

  async function make(): Promise<void> {
    const p = period.value;
    if ('problem' in p) return;
    const query: StatementQuery = { from: p.from, to: p.to };
    if (currency.value !== ALL_CURRENCIES) query.currencyCode = currency.value;
    const isLatest = requests.begin();
    loading.value = true;
    try {
      const r = await desk().statements.get(query);
      if (!isLatest()) return;
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      error.value = null;
      view.value = r.data;
      shownQuery.value = query;
      loaded.value = true;
      const codes = new Set([...knownCurrencies.value, ...r.data.currencies.map((c) => c.currencyCode)]);
      knownCurrencies.value = [...codes].sort();
    } catch (e) {
      if (isLatest()) error.value = errorFromException(e);
    } finally {
      if (isLatest()) loading.value = false;
    }
  }

  /** A statement with at least one currency is on the screen (not an error, not "nothing to reconcile"). */
  const canExport = computed(() => shownQuery.value !== null && error.value === null && (view.value?.currencies.length ?? 0) > 0);

  /** The statement shown as a file with every movement (main audits each export). */
  async function exportShown(format: StatementFormat): Promise<Result<FileContent>> {
    const query = shownQuery.value;
    if (!query) throw new Error('No statement is shown to export');
    return desk().statements.export({ ...query, format });
  }

  /** The statement shown covers a period that has ended: only such a statement can be issued. */
  const shownClosed = computed(() => shownQuery.value !== null && Date.parse(shownQuery.value.to) <= Date.now());

  /** Issues the statement shown (main stores it with its digest); the screen then shows it as issued. */
  async function issueShown(): Promise<Result<StatementView>> {
    const query = shownQuery.value;
    if (!query) throw new Error('No statement is shown to issue');
    const r = await desk().statements.issue(query);
    if (r.ok && shownQuery.value === query) view.value = r.data;
    return r;
  }

  /** The period shown as journal lines for the ledger; each movement is exported once (main keeps which). */
  async function accountingShown(format: AccountingFormat): Promise<Result<AccountingExport>> {
    const query = shownQuery.value;
    if (!query) throw new Error('No statement is shown to export');
    return desk().statements.accounting({ ...query, format });
  }

  const accounts = (): Promise<Result<AccountingAccounts>> => desk().statements.accounts();
  const setAccounts = (a: AccountingAccounts): Promise<Result<AccountingAccounts>> => desk().statements.setAccounts(a);

  /** The screen opened: this month's statement, the first time only (a made one stays shown with its time). */
  async function hydrate(): Promise<void> {
    if (loaded.value || loading.value) return;
    preset.value = 'this-month';
    await make();
  }

  /** Another profile: none of this one's figures or currencies may show under it. */
  function dehydrate(): void {
    requests.dropAll();
    view.value = null;
    shownQuery.value = null;
    loading.value = false;
    loaded.value = false;
    error.value = null;
    currency.value = ALL_CURRENCIES;
    knownCurrencies.value = [];
  }

  return {
    preset, firstDay, lastDay, currency, knownCurrencies, view, shownQuery, loading, loaded, error, period, problem, canExport, shownClosed,
    make, hydrate, dehydrate, exportShown, issueShown, accountingShown, accounts, setAccounts,
  };
});

registerAreaStore(useStatementsStore);
