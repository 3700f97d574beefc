// The application menu (main/shell/menu.ts) only says what the user chose; this is the one place in the
// renderer that acts on it, through the same stores and calls as the screens' own buttons.
import { onBeforeUnmount, onMounted, ref } from 'vue';
import { useRouter } from 'vue-router';
import type { AppInfo, FileGrant, MenuCommand, Unsubscribe } from '../../contract/api';
import { desk } from '../desk';
import { saveFile } from '../lib/save-file';
import { useBatchDraftStore } from '../stores/batch-draft';
import { useBatchRunStore } from '../stores/batch-run';
import { useHistoryStore } from '../stores/history';
import { useNotifyStore } from '../stores/notify';
import { useSessionStore } from '../stores/session';
import { useAction } from './use-action';

export function useMenuCommands() {
  const router = useRouter();
  const notify = useNotifyStore();
  const session = useSessionStore();
  const batchDraft = useBatchDraftStore();
  const batchRun = useBatchRunStore();
  const history = useHistoryStore();
  const aboutOpen = ref(false);
  const about = ref<AppInfo | null>(null);

  const exportHistory = useAction(() => history.exportFiltered());
  const exportBatch = useAction((batchId: string) => desk().batches.exportResults({ batchId }));
  const openDataFolder = useAction(() => desk().app.openDataFolder());
  const loadInfo = useAction(() => desk().app.info());
  const validateChosen = useAction((file: FileGrant) => batchDraft.validateFile(file), { latest: true });

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
    if (router.currentRoute.value.name !== 'batches') await router.push({ name: 'batches' });
    if (file) await validateChosen.run(file);
  }

  async function exportCurrent(): Promise<void> {
    const screen = router.currentRoute.value.name;
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

  async function run(command: MenuCommand, file?: FileGrant): Promise<void> {
    switch (command) {
      case 'import-csv':
        return importCsv(file);
      case 'export':
        return exportCurrent();
      case 'open-data-folder':
        return showDataFolder();
      case 'about':
        return showAbout();
    }
  }

  let unsubscribe: Unsubscribe | undefined;
  onMounted(() => {
    unsubscribe = desk().events.menuCommand(({ command, file }) => void run(command, file));
  });
  onBeforeUnmount(() => unsubscribe?.());

  return { aboutOpen, about, run };
}
