// The real desk behind the page: an AppContext in a temp home (in-memory key store), the IPC
// handlers main registers in the Electron app, and the app's demo mode, which starts the sandbox
// gateway on a free loopback port.
// The page reaches them only through window.desk (bridge-page.ts), exactly like the renderer in Electron.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { IpcHandlerMap, OperatorView, Result } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { DemoMode } from '../../../main/demo/demo-mode';
import { createAppContext } from '../../../main/context';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { createDeskEvents, type DeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { bindActiveProfile, createDeskServices, type DialogPort } from '../../../main/desk/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createLogger, type Logger } from '../../../main/log';
import { bridgePage } from './bridge-page';

export interface DeskHarness {
  home: string;
  handlers: IpcHandlerMap;
  events: DeskEvents;
  runtime: DeskRuntime;
  /** The Demo profile's sandbox (started by the app's own demo mode on a free loopback port). */
  sandbox(): SandboxHandle;
  /** The gateway's view: how many payouts it stored. */
  sandboxState(): Promise<{ payoutCount: number; payinCount: number; createAttempts: Record<string, number> }>;
  /** First operator for a currency, as the gateway lists it. */
  operatorFor(currencyCode: string): Promise<string>;
  /** Makes the gateway unreachable (for failure states). */
  stopGateway(): Promise<void>;
  /**
   * From now on the gateway does not learn the public keys the desk registers: like a key letter the
   * gateway has not processed yet, so a payout signed with a new key has its credentials refused.
   */
  withholdNewKeys(): void;
  /** The gateway processes the withheld key letters (through its own /_sandbox/merchants/:code/keys route). */
  deliverWithheldKeys(): Promise<number>;
  /**
   * What the person picks in main's next system dialog (open or save): a path, or null for Cancel. The
   * dialog itself is Electron's and cannot be shown in the browser; the services behind it are the real ones.
   */
  answerNextDialog(path: string | null): void;
  close(): Promise<void>;
}

/** Errors of the services reach the test output (already redacted by the logger); the rest stays quiet. */
function harnessLogger(): Logger {
  const base = createLogger((line) => process.stderr.write(`[desk] ${line}\n`));
  return { info: () => undefined, warn: () => undefined, error: (m, f) => base.error(m, f) };
}

export async function createDesk(): Promise<Omit<DeskHarness, 'close'> & { close(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'payout-desk-e2e-'));
  const log = harnessLogger();
  const ctx = createAppContext({ home, keyStore: new MemoryKeyStore(), logger: log });
  const events = createDeskEvents((error) => log.error('event listener failed', { error }));
  const runtime = createDeskRuntime({ ctx, events, log });
  let sandbox: SandboxHandle | undefined;
  let sandboxOpen = false;
  // Key letters the gateway has not processed yet (withholdNewKeys); null while keys go straight through.
  let withheldKeys: { merchantCode: string; pem: string }[] | null = null;
  // The app's own demo mode; only the sandbox start is wrapped so the test can see the gateway's state
  // (and hold back the keys demo mode registers, when a test asks for that).
  const demo = new DemoMode({
    ctx,
    log,
    start: async (config, opts) => {
      const started = await startSandbox(config, opts);
      sandbox = {
        ...started,
        registerPublicKey(merchantCode, pem) {
          if (withheldKeys) withheldKeys.push({ merchantCode, pem });
          else started.registerPublicKey(merchantCode, pem);
        },
      };
      sandboxOpen = true;
      return sandbox;
    },
  });
  const dialogAnswers: (string | null)[] = [];
  const nextAnswer = (): string | null => {
    if (dialogAnswers.length === 0) throw new Error('main opened a dialog the test did not answer (answerNextDialog)');
    return dialogAnswers.shift() ?? null;
  };
  const dialogs: DialogPort = { chooseOpenFile: async () => nextAnswer(), chooseSavePath: async () => nextAnswer() };
  const env = { name: 'Payout Desk', version: 'e2e', platform: process.platform, demoAvailable: true, dialogs };
  const services = bindActiveProfile(createDeskServices(runtime, env, demo), ctx);
  const handlers = createIpcHandlers(services, { log });
  const gateway = (): SandboxHandle => {
    if (!sandbox) throw new Error('no Demo profile yet: the sandbox starts with it');
    return sandbox;
  };

  return {
    home,
    handlers,
    events,
    runtime,
    sandbox: gateway,
    async sandboxState() {
      const s = gateway().state();
      return { payoutCount: s.payouts.length, payinCount: s.payins.length, createAttempts: s.createAttempts.payouts };
    },
    async operatorFor(currencyCode) {
      const r = (await handlers['payouts:operators']({ currencyCode })) as Result<OperatorView[]>;
      if (!r.ok) throw new Error(`operators: ${r.error.message}`);
      const op = r.data.find((o) => o.currencyCodes.includes(currencyCode) && o.paymentMethodCode === 'BANK_TRANSFER') ?? r.data[0];
      if (!op) throw new Error(`no operator for ${currencyCode}`);
      return op.code;
    },
    answerNextDialog(path) {
      dialogAnswers.push(path);
    },
    withholdNewKeys() {
      withheldKeys ??= [];
    },
    async deliverWithheldKeys() {
      const letters = withheldKeys ?? [];
      withheldKeys = null;
      for (const { merchantCode, pem } of letters) {
        const res = await fetch(`${gateway().url}/_sandbox/merchants/${encodeURIComponent(merchantCode)}/keys`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: pem,
        });
        if (res.status !== 201) throw new Error(`the gateway refused the key letter: ${res.status} ${await res.text()}`);
      }
      return letters.length;
    },
    async stopGateway() {
      if (sandboxOpen) await gateway().close();
      sandboxOpen = false;
    },
    async close() {
      await runtime.close().catch(() => undefined);
      ctx.close();
      if (sandboxOpen) await demo.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** A fresh desk for one test, bridged into the page. */
export async function startDesk(page: Page): Promise<DeskHarness> {
  const desk = await createDesk();
  const stop = await bridgePage(page, { handlers: desk.handlers, events: desk.events });
  return {
    ...desk,
    async close() {
      stop();
      // Leave the app first, so no request is still in flight when the journal closes.
      await page.goto('about:blank').catch(() => undefined);
      await desk.close();
    },
  };
}
