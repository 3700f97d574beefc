// A desk of a team as the app runs it, for tests: its own data folder and keychain (a separate machine), the
// real DeskRuntime, desk services and IPC handlers, and a profile pointed at the team database. A sender desk
// holds the merchant's key (registered with the sandbox); the others hold none and send nothing. With no team database it
// is a single desk on its own SQLite journal, so a test can run the same steps on both back ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Channel, EventContract, EventName, IpcHandlerMap, Result } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents, type DeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createLogger, type Logger } from '../../../main/log';
import { openTeamStores } from '../../../main/store/postgres/profile-stores';
import type { SandboxHandle } from '../../../sandbox/index';
import { TEST_ENGINE_TIMINGS } from '../engine/setup';

export const TEAM_PROFILE = 'team';
export const TEAM_MERCHANT = 'DEMO-MERCHANT';

export interface TeamAppDesk {
  readonly name: string;
  readonly home: string;
  readonly ctx: AppContext;
  readonly runtime: DeskRuntime;
  readonly events: DeskEvents;
  readonly handlers: IpcHandlerMap;
  /** Every event the desk emitted so far, by name. */
  readonly seen: { [K in EventName]: EventContract[K][] };
  call<T>(channel: Channel, args?: unknown): Promise<T>;
  /** The error of a call that must fail. */
  fails(channel: Channel, args?: unknown): Promise<{ code: string; message: string }>;
  close(): Promise<void>;
}

/** Errors reach the test output; the rest stays quiet. */
function deskLogger(name: string): Logger {
  const base = createLogger((line) => process.stderr.write(`[${name}] ${line}\n`));
  return { info: () => undefined, warn: () => undefined, error: (m, f) => base.error(m, f) };
}

export async function openTeamAppDesk(options: {
  name: string;
  /** postgres://… of the team database (tests: trust authentication, no TLS); null: a single desk on its own SQLite journal. */
  teamUrl: string | null;
  gatewayUrl: string;
  /** A sender desk: a key of its own, registered with this sandbox. */
  senderOf?: SandboxHandle;
  leaseMs?: number;
}): Promise<TeamAppDesk> {
  const home = mkdtempSync(join(tmpdir(), `team-desk-${options.name}-`));
  const log = deskLogger(options.name);
  const ctx = createAppContext({ home, keyStore: new MemoryKeyStore(), logger: log, fetchTimeoutMs: 5_000 });
  ctx.profiles.add({ id: TEAM_PROFILE, name: 'Team payouts', baseUrl: options.gatewayUrl, merchantCode: TEAM_MERCHANT, rateLimitPerSec: 10, pollIntervalSecs: 1 });
  if (options.senderOf) {
    await ctx.keys.generateKey(TEAM_PROFILE, 2048);
    options.senderOf.registerPublicKey(TEAM_MERCHANT, await ctx.keys.publicKeyPem(TEAM_PROFILE));
  }
  if (options.teamUrl !== null) ctx.profiles.update(TEAM_PROFILE, { teamDatabase: { url: options.teamUrl, tls: 'disable', caFile: null } });
  ctx.profiles.setCurrent(TEAM_PROFILE);
  const events = createDeskEvents((error) => log.error('event listener failed', { error }));
  const seen = {} as { [K in EventName]: EventContract[K][] };
  for (const name of ['batchProgress', 'paymentStatusChanged', 'connectionChanged', 'notification', 'menuCommand', 'sessionChanged', 'approvalsChanged'] as const) {
    const list: unknown[] = [];
    (seen as Record<string, unknown[]>)[name] = list;
    events.on(name, (e) => list.push(e));
  }
  const runtime = createDeskRuntime({
    ctx, events, log,
    engineOptions: () => ({ ...TEST_ENGINE_TIMINGS, heldElsewhereRetryMs: 300 }),
    openTeamStores: (profile) => openTeamStores({ ctx, profile, log, deskName: options.name, ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}) }),
  });
  const services = bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: false }, null), ctx);
  const handlers = createIpcHandlers(services, { log });
  const invoke = async (channel: Channel, args?: unknown) => (await handlers[channel](args)) as Result<unknown>;
  return {
    name: options.name,
    home,
    ctx,
    runtime,
    events,
    handlers,
    seen,
    async call<T>(channel: Channel, args?: unknown): Promise<T> {
      const r = await invoke(channel, args);
      if (!r.ok) throw new Error(`${options.name} ${channel}: ${r.error.code} ${r.error.message}`);
      return r.data as T;
    },
    async fails(channel, args) {
      const r = await invoke(channel, args);
      if (r.ok) throw new Error(`${options.name} ${channel} should have failed`);
      return r.error;
    },
    async close() {
      await runtime.close().catch(() => undefined);
      ctx.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A payout CSV of `count` EUR rows with ids `<prefix>-0001…`, as the batch screens take it (base64). */
export function teamCsv(prefix: string, count: number, fileName = `${prefix}.csv`): { kind: 'base64'; fileName: string; base64: string } {
  const rows = Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(4, '0');
    return `${prefix}-${n},${(12 + i).toFixed(2)},EUR,Supplier ${n},DE89370400440532013000,EU_SEPA,supplier${n}@example.com`;
  });
  const text = ['idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress', ...rows].join('\n');
  return { kind: 'base64', fileName, base64: Buffer.from(text).toString('base64') };
}

/** Polls `check` until it is true (each try awaited), or fails saying what was awaited. */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
