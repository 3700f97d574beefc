// Electron entry. Reads as a list of features; each lives in its own module and is tested there.
// Only this file, window.ts, ipc.ts and main/shell/** import electron.
import { join } from 'node:path';
import { app, BrowserWindow, dialog, Menu, Notification, powerMonitor, protocol, session, shell } from 'electron';
import electronLog from 'electron-log/main';
import { EVENT_CHANNELS, type MenuCommand } from '../contract/api';
import { createAppContext } from './context';
import { DemoMode } from './demo/demo-mode';
import { forwardEventsToWindow, registerIpcHandlers, type SenderTrust } from './ipc/register';
import { bindActiveProfile, createDeskServices } from './desk';
import { createDeskEvents } from './desk/events';
import { startDeskAlerts } from './desk/alerts';
import { startRecurring } from './desk/recurring';
import { createIpcHandlers } from './ipc/handlers';
import { composeDesk } from './compose/desk';
import { handleAppProtocol, registerAppScheme } from './shell/app-protocol';
import { setupLogging } from './shell/logging';
import { electronFileDialogs } from './shell/file-dialogs';
import { buildMenuTemplate } from './shell/menu';
import { lockSessionsOnPowerEvents } from './shell/power-lock';
import { createNotificationPolicy } from './shell/notifications';
import { trustedOrigins } from './shell/origins';
import { acquireSingleInstance } from './shell/single-instance';
import { denyAllPermissions, guardWebContents } from './shell/web-contents-guards';
import { createMainWindow } from './window';

// Must happen before 'ready': app:// is a standard, secure scheme.
registerAppScheme(protocol);
// Every renderer is sandboxed, whatever a window's preferences say (security checklist item 4).
app.enableSandbox();

const log = setupLogging(electronLog);
let mainWindow: BrowserWindow | null = null;

if (acquireSingleInstance(app, () => mainWindow)) {
  void app.whenReady().then(start).catch((error: unknown) => {
    log.error('start-up failed', { error });
    app.quit();
  });
}

async function start(): Promise<void> {
  const origins = trustedOrigins(process.env['ELECTRON_RENDERER_URL'], app.isPackaged);
  const trust: SenderTrust = { origins, webContentsIds: new Set() };

  handleAppProtocol(protocol, join(import.meta.dirname, '../renderer'));
  denyAllPermissions(session.defaultSession);
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, origins, log));

  const home = process.env['PAYOUT_DESK_HOME'] ?? app.getPath('userData');
  const ctx = createAppContext({ home, logger: log });
  const events = createDeskEvents((error) => log.error('event listener failed', { error }));
  const runtime = composeDesk({ ctx, events, log });
  const demo = new DemoMode({ ctx, log });
  for (const profile of ctx.profiles.list().filter((p) => p.isDemo)) {
    await demo.resume(profile.id).catch((error: unknown) => log.warn('demo sandbox did not restart', { profileId: profile.id, error }));
  }
  const dialogs = electronFileDialogs({ dialog, window: () => mainWindow, documentsDir: app.getPath('documents') });
  const services = bindActiveProfile(
    createDeskServices(
      runtime,
      { name: app.getName(), version: app.getVersion(), platform: process.platform, demoAvailable: true, openPath: (path) => shell.openPath(path), dialogs },
      demo,
    ),
    ctx,
  );
  registerIpcHandlers(createIpcHandlers(services, { log }), trust, log);
  // Dual control: a locked screen or a suspended machine locks every unlocked person.
  lockSessionsOnPowerEvents(powerMonitor, runtime, log);

  const openWindow = () => {
    mainWindow = createMainWindow({ devServerUrl: process.env['ELECTRON_RENDERER_URL'], isPackaged: app.isPackaged });
    trust.webContentsIds.add(mainWindow.webContents.id);
    mainWindow.on('closed', () => (mainWindow = null));
  };
  openWindow();
  forwardEventsToWindow(events, () => mainWindow?.webContents ?? null);

  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      buildMenuTemplate({
        appName: app.getName(),
        platform: process.platform,
        isPackaged: app.isPackaged,
        send: (command) => void sendMenuCommand(command).catch((error: unknown) => log.warn('menu command failed', { command, error })),
      }),
    ),
  );

  // A menu click gives the page no user gesture, so it cannot open its own file picker: for Import CSV
  // main asks with its own dialog (app:chooseFile, the same one the page's "Choose file…" opens) and hands
  // the page only the token of the chosen file.
  async function sendMenuCommand(command: MenuCommand): Promise<void> {
    const window = mainWindow;
    if (!window) return;
    if (command !== 'import-csv') return window.webContents.send(EVENT_CHANNELS.menuCommand, { command });
    const choice = await services.app.chooseFile?.({ purpose: 'csv' });
    if (choice?.chosen) window.webContents.send(EVENT_CHANNELS.menuCommand, { command, file: choice.file });
  }

  const policy = createNotificationPolicy();
  const notify = (note: ReturnType<typeof policy.onBatchProgress>) => {
    if (!note) return;
    events.emit('notification', note);
    if (Notification.isSupported()) new Notification({ title: note.title, body: note.body, silent: note.level === 'success' }).show();
  };
  events.on('batchProgress', (progress) => notify(policy.onBatchProgress(progress)));
  events.on('paymentStatusChanged', (change) => notify(policy.onPaymentStatus(change)));
  // And what the people of this desk must act on, each told once (main/desk/alerts.ts).
  const alerts = startDeskAlerts(runtime, notify);
  // Recurring payouts' occurrences, made ahead while someone who may prepare them is at the desk (main/desk/recurring.ts).
  const recurring = startRecurring(runtime);

  const current = ctx.profiles.currentId();
  if (current) void runtime.engineFor(current).catch((error: unknown) => log.warn('engine did not start', { error }));

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) openWindow();
  });
  // Engines finish the requests on the wire and journals close before the process ends.
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    alerts.stop();
    recurring.stop();
    void runtime
      .close()
      .then(() => demo.close())
      .catch((error: unknown) => log.error('shutdown problem', { error }))
      .finally(() => {
        ctx.close();
        closed = true;
        app.quit();
      });
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
