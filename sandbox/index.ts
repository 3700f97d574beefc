// Public entry of the sandbox: startSandbox() for tests, the CLI and the app's demo mode.
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { TokenService } from './auth';
import { CallbackDispatcher } from './callbacks';
import { parseSandboxConfig, type SandboxConfigInput } from './config';
import type { SandboxContext } from './context';
import { FaultController, type FaultConfig } from './faults';
import { PaymentLifecycle } from './lifecycle';
import { BODY_LIMIT_BYTES, installPipeline } from './pipeline';
import { SlidingWindowLimiter } from './rate-limit';
import { registerAdminRoutes } from './routes/admin';
import { registerInfoRoutes } from './routes/info';
import { registerPayinRoutes } from './routes/payins';
import { registerPayoutRoutes } from './routes/payouts';
import { registerTokenRoutes } from './routes/tokens';
import { newTokenSigningSecret, readStateFile, restoreStore, StateWriter } from './persistence';
import { snapshotState, type SandboxState } from './state';
import { SandboxStore } from './store';
import { TimerSet } from './timers';
import { currencyOf } from './views';

export { defaultSandboxConfig, loadSandboxConfigFile, parseSandboxConfig } from './config';
export type {
  SandboxConfig,
  SandboxConfigInput,
  MerchantConfig,
  FeeRule,
  Timings,
  OutcomeRule,
  ReturnRule,
} from './config';
export type { FaultConfig } from './faults';
export type { SandboxState, PayoutStateEntry, PayinStateEntry } from './state';
export type { CallbackRecord, CallbackPayload, CallbackEventType } from './callbacks';

export type SandboxHandle = {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43817 */
  url: string;
  port: number;
  close(): Promise<void>;
  state(): SandboxState;
  setFaults(faults: Partial<FaultConfig>): void;
  registerPublicKey(merchantCode: string, pem: string): void;
  markPayinPaid(idPayin: string): void;
  /** SUCCESS → RETURNED now; without a reason the config's manualReturnReason is used. */
  returnPayout(idPayout: string, reason?: string): void;
  /** Adds (negative: removes) available funds, in minor units. */
  fund(merchantCode: string, currencyCode: string, amountMinor: number): void;
};

export type StartOptions = {
  port?: number;
  host?: string;
  /** Keep merchants, keys, balances and payments in this JSON file across restarts (see persistence.ts). */
  stateFile?: string;
  /** A write of the state file failed (the sandbox keeps running and tries again on the next change). */
  onStateError?: (error: Error) => void;
};

function buildContext(config: ReturnType<typeof parseSandboxConfig>, tokenSigningSecret?: string): SandboxContext {
  const timers = new TimerSet();
  const store = new SandboxStore(config);
  const callbacks = new CallbackDispatcher(config.callbackRetry, timers);
  return {
    config,
    store,
    timers,
    callbacks,
    lifecycle: new PaymentLifecycle(store, config, timers, callbacks),
    tokens: new TokenService(config.tokens.signingSecret ?? tokenSigningSecret ?? randomBytes(32).toString('base64url')),
    limiter: new SlidingWindowLimiter(config.rateLimitPerSecond),
    faults: new FaultController(config.faults),
  };
}

function buildSandboxApp(ctx: SandboxContext): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids longer than 64 must reach the handler to get a 400, not Fastify's silent 404.
    routerOptions: { maxParamLength: 1_000 },
    exposeHeadRoutes: false,
    forceCloseConnections: true,
  });
  installPipeline(app, ctx);
  registerTokenRoutes(app, ctx);
  registerPayoutRoutes(app, ctx);
  registerPayinRoutes(app, ctx);
  registerInfoRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  return app;
}

export async function startSandbox(config?: SandboxConfigInput, opts: StartOptions = {}): Promise<SandboxHandle> {
  const parsed = parseSandboxConfig(config ?? {});
  const saved = opts.stateFile ? await readStateFile(opts.stateFile) : null;
  const tokenSecret = saved?.tokenSigningSecret ?? newTokenSigningSecret();
  const ctx = buildContext(parsed, tokenSecret);
  let writer: StateWriter | undefined;
  if (opts.stateFile) {
    if (saved) restoreStore(ctx.store, saved);
    ctx.lifecycle.resumeAfterRestart();
    const stateWriter = new StateWriter(opts.stateFile, ctx.store, parsed.tokens.signingSecret ?? tokenSecret, opts.onStateError);
    ctx.store.onChange = () => stateWriter.changed();
    // Written at once, so the file (and the token key) exists from the first start.
    stateWriter.changed();
    writer = stateWriter;
  }
  const app = buildSandboxApp(ctx);
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port ?? 0, host });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('sandbox did not bind a TCP port');
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close() {
      closing ??= (async () => {
        ctx.timers.closeAll();
        ctx.callbacks.close();
        await app.close();
        await writer?.close();
      })();
      return closing;
    },
    state: () => snapshotState(ctx),
    setFaults: (faults) => void ctx.faults.update(faults),
    registerPublicKey: (merchantCode, pem) => void ctx.store.registerPublicKey(merchantCode, pem),
    markPayinPaid: (idPayin) => void ctx.lifecycle.markPayinPaid(idPayin),
    returnPayout: (idPayout, reason) => void ctx.lifecycle.returnPayout(idPayout, reason),
    fund: (merchantCode, currencyCode, amountMinor) => {
      currencyOf(ctx.config, currencyCode);
      ctx.store.fund(merchantCode, currencyCode, amountMinor);
    },
  };
}
