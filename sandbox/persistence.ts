// `--state <file>`: the sandbox keeps its merchants (registered keys, balances), payments and create
// counters across restarts. Loaded once at start; written atomically (temp file + rename, so a crash
// mid-write leaves the previous file whole) shortly after each change and on close. The token signing
// key is kept too, so tokens issued before a restart stay valid.
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { parsePublicKey, type MerchantState, type PayinRecord, type PayoutRecord, type SandboxStore } from './store';

const STATE_VERSION = 1;
/** Changes within this window are written together. */
const WRITE_DELAY_MS = 200;

const Balance = z.object({ availableMinor: z.number().int(), reservedMinor: z.number().int() });
const StatusChange = z.object({ status: z.string(), at: z.string() });
const Account = z.object({ accountName: z.string(), accountNumber: z.string() });
const Payment = {
  merchantCode: z.string(),
  amountMinor: z.number().int(),
  currencyCode: z.string(),
  paymentMethodCode: z.string(),
  paymentOperatorCode: z.string(),
  emailAddress: z.string(),
  callbackUrl: z.string().optional(),
  createdAt: z.number(),
  processedAt: z.number().optional(),
  failureReason: z.string().optional(),
  history: z.array(StatusChange),
};

const StateFileSchema = z.object({
  version: z.literal(STATE_VERSION),
  tokenSigningSecret: z.string().min(32),
  merchants: z.array(
    z.object({
      code: z.string(),
      channelName: z.string(),
      secret: z.string().optional(),
      publicKeysPem: z.array(z.string()),
      balances: z.record(z.string(), Balance),
    }),
  ),
  payouts: z.array(
    z.object({
      ...Payment,
      idPayout: z.string(),
      account: Account,
      feeMinor: z.number().int(),
      status: z.enum(['PENDING', 'PROCESSING', 'SUCCESS', 'FAILED', 'RETURNED']),
      reservedMinor: z.number().int(),
    }),
  ),
  payins: z.array(
    z.object({
      ...Payment,
      idPayin: z.string(),
      customerAccount: Account,
      returnUrl: z.string().optional(),
      status: z.enum(['PENDING', 'SUCCESS', 'EXPIRED', 'FAILED']),
      expireAt: z.number(),
      reference: z.string(),
      payTo: Account.extend({ bankCode: z.string(), bankName: z.string() }),
    }),
  ),
  createAttempts: z.object({ payouts: z.record(z.string(), z.number().int()), payins: z.record(z.string(), z.number().int()) }),
});
export type SavedSandboxState = z.infer<typeof StateFileSchema>;

export class StateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateFileError';
  }
}

/** The saved state, or null when the file does not exist yet (first start). */
export async function readStateFile(path: string): Promise<SavedSandboxState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StateFileError(`Cannot read the sandbox state file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new StateFileError(`The sandbox state file ${path} is not JSON; move it away to start with a fresh state`);
  }
  const parsed = StateFileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new StateFileError(`The sandbox state file ${path} is not a state this sandbox wrote (${first?.path.join('.') || 'file'}: ${first?.message}); move it away to start with a fresh state`);
  }
  return parsed.data;
}

export function newTokenSigningSecret(): string {
  return randomBytes(32).toString('base64url');
}

const publicPem = (key: MerchantState['publicKeys'][number]) => key.export({ type: 'spki', format: 'pem' }).toString();

/** Puts a saved state into a freshly configured store: saved merchants replace configured ones of the same code. */
export function restoreStore(store: SandboxStore, saved: SavedSandboxState): void {
  for (const m of saved.merchants) {
    const configured = store.merchants.get(m.code);
    // Keys of the config and keys registered before the restart, each once.
    const pems = new Set([...(configured?.publicKeys ?? []).map(publicPem), ...m.publicKeysPem]);
    store.merchants.set(m.code, {
      code: m.code,
      channelName: configured?.channelName ?? m.channelName,
      ...((configured?.secret ?? m.secret) !== undefined ? { secret: configured?.secret ?? m.secret } : {}),
      publicKeys: [...pems].map(parsePublicKey),
      balances: new Map(Object.entries(m.balances).map(([code, b]) => [code, { ...b }])),
    });
  }
  for (const p of saved.payouts) store.payouts.set(p.idPayout, { ...p } as PayoutRecord);
  for (const p of saved.payins) store.payins.set(p.idPayin, { ...p } as PayinRecord);
  for (const [id, n] of Object.entries(saved.createAttempts.payouts)) store.payoutCreateAttempts.set(id, n);
  for (const [id, n] of Object.entries(saved.createAttempts.payins)) store.payinCreateAttempts.set(id, n);
}

function snapshot(store: SandboxStore, tokenSigningSecret: string): SavedSandboxState {
  return {
    version: STATE_VERSION,
    tokenSigningSecret,
    merchants: [...store.merchants.values()].map((m) => ({
      code: m.code,
      channelName: m.channelName,
      ...(m.secret !== undefined ? { secret: m.secret } : {}),
      publicKeysPem: m.publicKeys.map(publicPem),
      balances: Object.fromEntries([...m.balances].map(([code, b]) => [code, { ...b }])),
    })),
    payouts: [...store.payouts.values()],
    payins: [...store.payins.values()],
    createAttempts: { payouts: Object.fromEntries(store.payoutCreateAttempts), payins: Object.fromEntries(store.payinCreateAttempts) },
  };
}

/** Writes the store to `path` a moment after each change (one write at a time), and once more on close. */
export class StateWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly path: string,
    private readonly store: SandboxStore,
    private readonly tokenSigningSecret: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** Something changed: write soon. */
  changed(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, WRITE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes now if anything changed since the last write; resolves when the file is in place. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const text = JSON.stringify(snapshot(this.store, this.tokenSigningSecret));
      const temp = `${this.path}.${process.pid}.tmp`;
      try {
        await writeFile(temp, text, { mode: 0o600 });
        await rename(temp, this.path);
      } catch (error) {
        this.dirty = true;
        this.onError(error as Error);
      }
    });
    return this.writing;
  }

  /** The last write, after the sandbox stopped changing state. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
