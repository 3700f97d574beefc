// The application menu (main/shell/menu.ts) only says what the user chose; this is the one place in the
// renderer that acts on it, through the same stores and calls as the screens' own buttons. The keyboard
// shortcuts in the page (use-shortcut-keys.ts, one table in contract/shortcuts.ts) come here too.
import { onBeforeUnmount, onMounted, ref } from 'vue';
import { useRouter } from 'vue-router';
import type { AppInfo, FileGrant, MenuCommand, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import { focusWhenShown } from '../lib/focus-when-shown';
import { saveFile } from '../lib/save-file';
import { screens } from '../router';
import { useBalancesStore } from '../stores/balances';
import { useBatchDraftStore } from '../stores/batch-draft';
import { useBatchRunStore } from '../stores/batch-run';
import { useCatalogStore } from '../stores/catalog';
import { useDualControlStore } from '../stores/dual-control';
import { useHistoryStore } from '../stores/history';
import { useNotifyStore } from '../stores/notify';
import { useOverviewStore } from '../stores/overview';
import { usePayinsStore } from '../stores/payins';
import { useSessionStore } from '../stores/session';
import { useSchedulesStore } from '../stores/schedules';
import { useStatementsStore } from '../stores/statements';
import { useAction } from './use-action';
import { useShortcutKeys } from './use-shortcut-keys';

type ScreenName = (typeof screens)[number]['name'];
type GoCommand = Extract<MenuCommand, `go-${string}`>;
/** Screens of the drawer with no Go menu item and no shortcut (the menu and its keys live in contract/). */
type DrawerOnlyScreen = 'statements' | 'calendar';
const isDrawerOnly = (name: ScreenName): name is DrawerOnlyScreen => name === 'statements' || name === 'calendar';
/** Go › <screen>. Compiles only while every other screen of the drawer has its go- command in MENU_COMMANDS. */
const goCommandOf = (name: Exclude<ScreenName, DrawerOnlyScreen>): GoCommand => `go-${name}`;

/** The fields a shortcut puts the cursor in (data-testid of the Vuetify field, then its input). */
export const PAYOUT_AMOUNT_INPUT = '[data-testid="payout-amount"] input';
export const HISTORY_SEARCH_INPUT = '[data-testid="history-search"] input';

export function useMenuCommands() {
  const router = useRouter();
  const notify = useNotifyStore();
  const session = useSessionStore();
  const batchDraft = useBatchDraftStore();
  const batchRun = useBatchRunStore();
  const history = useHistoryStore();
  const balances = useBalancesStore();
  const catalog = useCatalogStore();
  const payins = usePayinsStore();
  const dualControl = useDualControlStore();
  const overview = useOverviewStore();
  const statements = useStatementsStore();
  const schedules = useSchedulesStore();
  const aboutOpen = ref(false);
  const about = ref<AppInfo | null>(null);
  const shortcutsOpen = ref(false);
  /** Bumped to mount the screen again (Refresh on a screen whose data is its own, not a store's). */
  const screenReloads = ref(0);

  const exportHistory = useAction(() => history.exportFiltered());
  const exportBatch = useAction((batchId: string) => desk().batches.exportResults({ batchId }));
  const openDataFolder = useAction(() => desk().app.openDataFolder());
  const loadInfo = useAction(() => desk().app.info());
  const validateChosen = useAction((file: FileGrant) => batchDraft.validateFile(file), { latest: true });
  // The app bar's Lock button runs the same call (SessionControl.vue).
  const lockAction = useAction(() => dualControl.lock());

  const screenName = () => router.currentRoute.value.name;

  /** Screens belong to a profile: the drawer is disabled without one, and so are its shortcuts. */
  function profileChosen(): boolean {
    if (session.activeProfile) return true;
    notify.push('info', 'Create or choose a profile first: the screens belong to a profile.');
    return false;
  }

  async function goTo(name: ScreenName): Promise<void> {
    if (screenName() !== name) await router.push({ name });
  }

  /** `file`: main already asked the user for the file (its own dialog); otherwise the page's picker opens. */
  async function importCsv(file?: FileGrant): Promise<void> {
    if (!session.activeProfile) {
      notify.push('info', 'Create or choose a profile first; batches belong to a profile.');
      return;
    }
    // Like "New batch": the open batch keeps running and stays under "Past batches".
    if (batchRun.current) {
      batchDraft.reset();
      batchRun.reset();
    }
    if (!file) batchDraft.requestPicker();
    if (screenName() !== 'batches') await router.push({ name: 'batches' });
    if (file) await validateChosen.run(file);
  }

  async function exportCurrent(): Promise<void> {
    const screen = screenName();
    if (screen === 'history' && session.activeProfile) {
      if (history.total === 0) {
        notify.push('info', 'No payment matches the filters: there is nothing to export.');
        return;
      }
      const file = await exportHistory.run();
      if (file) saveFile(file);
      return;
    }
    if (screen === 'batches' && session.activeProfile) {
      const batchId = batchRun.current?.id;
      if (!batchId) {
        notify.push('info', 'Open a batch (under "Past batches") to export its results.');
        return;
      }
      const file = await exportBatch.run(batchId);
      if (file) saveFile(file);
      return;
    }
    notify.push('info', 'There is nothing to export on this screen. History and Batches export their rows.');
  }

  async function showDataFolder(): Promise<void> {
    const r = await openDataFolder.run();
    if (r) notify.push('info', `Data folder: ${r.path}`);
  }

  async function showAbout(): Promise<void> {
    const info = (await loadInfo.run()) ?? session.info;
    if (!info) return;
    about.value = info;
    aboutOpen.value = true;
  }

  async function go(command: GoCommand): Promise<void> {
    const screen = screens.find((s) => !isDrawerOnly(s.name) && goCommandOf(s.name) === command);
    if (!screen || !profileChosen()) return;
    await goTo(screen.name);
  }

  /** File › New payout…: the New payout screen, the cursor in Amount (what is typed there already stays). */
  async function newPayout(): Promise<void> {
    if (!profileChosen()) return;
    await goTo('new-payout');
    await focusWhenShown(PAYOUT_AMOUNT_INPUT);
  }

  /** Go › Find in History…: History, the cursor in its search field with what it holds selected. */
  async function findInHistory(): Promise<void> {
    if (!profileChosen()) return;
    await goTo('history');
    await focusWhenShown(HISTORY_SEARCH_INPUT, { select: true });
  }

  /** File › Lock: what the app bar's Lock button does, or why there is nothing to lock. */
  async function lock(): Promise<void> {
    if (!session.activeProfile) return;
    if (!dualControl.session?.hasPeople) {
      notify.push('info', 'Nobody is set up on this profile, so there is nothing to lock. People › Add the first person turns dual control on.');
      return;
    }
    if (!dualControl.me) {
      notify.push('info', 'Nobody is unlocked at this desk.');
      return;
    }
    await lockAction.run();
  }

  /** View › Refresh: what the screen's own refresh does; a screen that keeps its data itself is mounted again. */
  async function refresh(): Promise<void> {
    if (!session.activeProfile) return;
    switch (screenName()) {
      case 'overview':
        // As its Refresh button: the picture of the day, and what waits for approval.
        await Promise.all([overview.load(), dualControl.enforced ? dualControl.loadQueue() : undefined]);
        return;
      case 'balances':
        return balances.load(true);
      case 'new-payout':
        // Currencies and operators; what is typed stays.
        return catalog.hydrate();
      case 'batches': {
        const open = batchRun.current?.id;
        await Promise.all([batchRun.loadPast(), open ? batchRun.open(open) : undefined]);
        return;
      }
      case 'approvals':
        return dualControl.loadQueue();
      case 'history':
        return history.apply();
      case 'statements':
        // As its "Make statement" button: the period and currency chosen (it may ask the gateway for the balance).
        return statements.make();
      case 'calendar':
        // The month on screen and the forecast, as main has them now.
        return schedules.load();
      case 'payins':
        await Promise.all([payins.loadRecent(), payins.current ? payins.refresh() : undefined]);
        return;
      case 'people':
        await Promise.all([dualControl.loadSession(), dualControl.loadPeople(), dualControl.loadControl()]);
        return;
      default:
        // Payees, Settings, a payout's page: they load what they show when they mount.
        screenReloads.value++;
    }
  }

  const isGo = (command: MenuCommand): command is GoCommand => command.startsWith('go-');

  async function run(command: MenuCommand, file?: FileGrant): Promise<void> {
    if (isGo(command)) return go(command);
    switch (command) {
      case 'import-csv':
        return importCsv(file);
      case 'export':
        return exportCurrent();
      case 'open-data-folder':
        return showDataFolder();
      case 'about':
        return showAbout();
      case 'new-payout':
        return newPayout();
      case 'find-history':
        return findInHistory();
      case 'lock':
        return lock();
      case 'refresh':
        return refresh();
      case 'shortcuts':
        aboutOpen.value = false;
        shortcutsOpen.value = true;
        return;
      default: {
        const unhandled: never = command;
        throw new Error(`menu command ${String(unhandled)} has no handler`);
      }
    }
  }

  let unsubscribe: Unsubscribe | undefined;
  onMounted(() => {
    unsubscribe = desk().events.menuCommand(({ command, file }) => void run(command, file));
  });
  onBeforeUnmount(() => unsubscribe?.());
  // The same commands from the keyboard in the page (and in a browser, where there is no menu).
  useShortcutKeys((command) => void run(command));

  return { aboutOpen, about, shortcutsOpen, screenReloads, run };
}
