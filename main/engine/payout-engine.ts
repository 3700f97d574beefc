// The submission engine: one per profile, over that profile's journal and gateway client. It owns the
// background work (batch runs, single sends, status poller, balance timer, callback listener) and
// emits events for the UI. Every decision it takes is first written to the journal, so stopping it
// at any moment (quit or crash) loses nothing and pays nothing twice: start() picks up from there.
import { EventEmitter } from 'node:events';
import { newPaymentId } from '../domain/ids';
import { DEFAULT_FINAL_STATUSES, NOT_PAID_STATUSES } from '../domain/status';
import { payoutFieldsOf, validatePayout, type FieldProblem, type PayoutDraft } from '../domain/payout';
import { JournalError, type BalanceSnapshot, type BatchRecord, type JournalPort, type ManifestRow, type NewPayment, type PaymentKind, type PaymentRecord } from '../journal';
import { deskActor } from '../audit/actor';
import { type Journal } from '../store/sqlite';
import { retryBatchSha256 } from '../journal/retry-digest';
import { BalanceWatcher } from './balance-watcher';
import { BatchRun, batchProgress } from './batch-runner';
import { CallbackListener, isLoopbackHost, publicCallbackUrl, type CallbackListenerState } from './callback-listener';
import type { BatchLiveState } from '../../contract/state-words';
import type { BatchProgressEvent, ConnectionEvent, EngineEvents } from './events';
import { EngineHaltError, PayoutSender, type SendOutcome } from './payout-sender';
import type { ApprovalGatePort, PayoutGatewayPort } from './ports';
import { StatusPoller } from './status-poller';
import { ApprovedSends } from './approved-sends';
import { BatchRuns } from './batch-runs';
import { DEFAULT_BACKOFF, type BackoffOptions } from './timing';
import { CodedError } from '../domain/coded-error';
import { describeExecution, type Execution } from '../schedules/execution';
import type { ScheduledKind, ScheduleRecord } from '../schedules/schedule';
import { ScheduleReleases } from './schedule-releases';

/** A scheduled release found more than this late waits for a person (PayoutEngineOptions.lateReleaseWindowMs). */
export const DEFAULT_LATE_WINDOW_MS = 6 * 3_600_000;
import { plural } from '../../contract/plural';

/** `J`: the journal the engine runs on, SQLite (a single desk, the default) or the team's on PostgreSQL. */
export interface PayoutEngineOptions<J extends JournalPort = Journal> {
  journal: J;
  gateway: PayoutGatewayPort;
  /** The profile's final statuses (default: main/domain/status.ts). */
  finalStatuses?: readonly string[];
  maxAmountMinor?: number | null;
  /** Base poll interval (profile pollIntervalSecs × 1000; default 10 s). */
  pollIntervalMs?: number;
  pollTickMs?: number;
  /** Sends in flight per batch; default twice the rate limit (4..256) so a create always waits for the next slot. */
  concurrency?: number;
  backoff?: Partial<BackoffOptions>;
  /**
   * Callback listener; off when absent (the default). Without a public URL it listens on loopback only,
   * whatever host is given. pathSecret: the profile's (default: a fresh one for this engine).
   */
  callbackListen?: { host: string; port: number; pathSecret?: string; publicBaseUrl?: string | null } | null;
  /** Minimum time between callback-triggered reads of one payment (default 2 s). */
  callbackReadIntervalMs?: number;
  /** callbackUrl sent with payouts that have none; default: the listener's URL when it runs. */
  callbackUrl?: string | null;
  /** Balance refresh period; no timer when absent. */
  balancesIntervalMs?: number | null;
  balanceCurrencies?: readonly string[];
  /** When an accepted payout answering 404 is flagged MISSING (default: 3 reads over 15 minutes). */
  missingRule?: { reads: number; spanMs: number };
  /**
   * How long after a run that left rows held by another desk of the team (their claims) the batch is run
   * again, to send what that desk gave back or, if it died, what its expired claims left (default 2 s).
   */
  heldElsewhereRetryMs?: number;
  /** Dual control: asked before any create of a payout or a batch's rows; absent, nothing is asked. */
  approvalGate?: ApprovalGatePort | null;
  /**
   * Dual control: the preparer signs what is about to be stored under their name (its rows as the journal will
   * hold them, and the batch's file digest), before it is stored, so no desk of a team ever finds it unsigned
   * (main/approvals/preparation.ts). A failure stores nothing.
   */
  prepare?: (subject: { kind: 'payout' | 'batch'; id: string }, preparedBy: string, content: PreparedContent) => Promise<void>;
  /** The calendar: how late a scheduled release may still be made without a person confirming it (default 6 h; null: any). */
  lateReleaseWindowMs?: number | null;
  /** Time between two looks at the calendar (default 15 s). */
  releaseTickMs?: number;
  /**
   * Whether this engine talks to the gateway (default true). A desk of a team without the merchant's key
   * stores payouts and batches in the team journal and changes their state, and leaves every request to
   * the team's sender desks: no sends, status reads, balance reads or callback listener here.
   */
  sends?: boolean;
  now?: () => number;
  random?: () => number;
}

/** What a preparer signs at submit (approvals/manifest.ts): the rows, the file, the release time, the rows confirmed as possible duplicates. */
export interface PreparedContent {
  rows: ManifestRow[];
  fileSha256: string | null;
  execution: Execution | null;
  possibleDuplicates: string[];
}

export type EngineErrorCode = 'VALIDATION' | 'NOT_FOUND' | 'BAD_STATE' | 'PAYOUT_HELD' | 'NOTHING_TO_RETRY' | 'RETRY_ROWS_CHANGED' | 'NOT_SENDER' | 'NOT_SIGNED';

export const NOT_SENDER_MESSAGE = "This desk does not talk to the gateway: the merchant's key is not on it. The team's sender desks send, read statuses and balances; what they see is shown here";

export class EngineError extends CodedError<EngineErrorCode> {
  constructor(
    code: EngineErrorCode,
    message: string,
    readonly problems: { rowNumber: number | null; problems: FieldProblem[] }[] = [],
  ) {
    super(code, message);
  }
}

export interface BatchSubmission {
  id?: string;
  fileName: string;
  sha256: string;
  /**
   * `extra`: the file's other columns, kept in the journal for the results export. `possibleDuplicate`: the preparer
   * confirmed the row's possible-duplicate warning (signed in the manifest; a policy may count it).
   */
  rows: (PayoutDraft & { rowNumber?: number; extra?: Readonly<Record<string, string>>; possibleDuplicate?: boolean })[];
  actor?: string;
  /** Person id of whoever prepared it (dual control: they cannot approve it). */
  preparedBy?: string;
  /** Released at this time (main/schedules/), not at once. */
  executeOn?: Execution;
}

export class PayoutEngine<J extends JournalPort = Journal> extends EventEmitter<EngineEvents> {
  readonly journal: J;
  private readonly gateway: PayoutGatewayPort;
  private readonly sender: PayoutSender;
  private readonly runs: BatchRuns;
  /** Dual control's checks at the moment a create would leave; null without an approval gate. */
  private readonly approved: ApprovedSends<J> | null;
  private readonly poller: StatusPoller;
  private readonly balances: BalanceWatcher;
  private readonly listener: CallbackListener;
  private readonly releases: ScheduleReleases;
  private readonly singles = new Map<string, Promise<SendOutcome>>();
  private singlesAbort = new AbortController();
  private readonly now: () => number;
  private connection: ConnectionEvent = { state: 'unknown', message: null, at: 0 };
  private defaultCallbackUrl: string | null;
  private callbackState: CallbackListenerState;
  private started = false;

  constructor(private readonly options: PayoutEngineOptions<J>) {
    super();
    this.journal = options.journal;
    this.gateway = options.gateway;
    this.now = options.now ?? Date.now;
    this.defaultCallbackUrl = options.callbackUrl ?? null;
    const finalStatuses = options.finalStatuses ?? DEFAULT_FINAL_STATUSES;
    const pollIntervalMs = options.pollIntervalMs ?? 10_000;
    const onError = (e: unknown) => this.emit('background-error', e instanceof Error ? e : new Error(String(e)));
    const onStatus = (e: EngineEvents['status-changed'][0]) => {
      this.emit('status-changed', e);
      // A batch is COMPLETED once every row is sent; its payouts settle afterwards. Each one that
      // settles changes the batch's counts, so progress is reported then too (a running batch
      // reports its own), and "all final" can be seen by listeners (the batch-finished notification).
      if (e.batchId && (e.final || e.source === 'local') && !this.runs.has(e.batchId)) this.runs.reportSettled(e.batchId);
    };
    this.sender = new PayoutSender({
      journal: this.journal,
      gateway: this.gateway,
      finalStatuses,
      pollIntervalMs,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      now: this.now,
      onStatus,
      onConnection: (state, message) => this.setConnection(state, message),
      ...(options.random ? { random: options.random } : {}),
    });
    this.approved = options.approvalGate
      ? new ApprovedSends({ journal: this.journal, gate: options.approvalGate, sender: this.sender, now: this.now, onStatus: (e) => this.emit('status-changed', e) })
      : null;
    this.runs = new BatchRuns({
      makeRun: (batchId) => this.newRun(batchId),
      sends: () => this.sends,
      started: () => this.started,
      batch: async (batchId) => this.journal.getBatch(batchId),
      report: async (batchId) => void this.emit('batch-progress', await batchProgress(this.journal, batchId, this.liveRate(batchId), this.batchLive(batchId))),
      onError,
      ...(options.heldElsewhereRetryMs !== undefined ? { rerunMs: options.heldElsewhereRetryMs } : {}),
    });
    this.poller = new StatusPoller({
      journal: this.journal, gateway: this.gateway, finalStatuses, pollIntervalMs, now: this.now, onStatus, onError,
      onConnection: (state, message) => this.setConnection(state, message),
      resolveUnknown: (id) => this.sender.resolveUncertain(id),
      ...(options.missingRule ? { missingRule: options.missingRule } : {}),
      ...(options.pollTickMs ? { tickMs: options.pollTickMs } : {}),
    });
    this.balances = new BalanceWatcher({ journal: this.journal, gateway: this.gateway, currencies: options.balanceCurrencies ?? [], now: this.now, onError, onConnection: (state, message) => this.setConnection(state, message) });
    this.listener = new CallbackListener({
      journal: this.journal, refresh: (kind, id) => this.poller.nudge(kind, id, 'callback'), onError,
      ...(options.callbackListen?.pathSecret ? { pathSecret: options.callbackListen.pathSecret } : {}),
      ...(options.callbackReadIntervalMs !== undefined ? { readIntervalMs: options.callbackReadIntervalMs } : {}),
    });
    this.callbackState = { state: options.callbackListen ? 'stopped' : 'off', boundTo: null, announcedUrl: this.defaultCallbackUrl, message: null };
    this.releases = new ScheduleReleases({
      journal: this.journal, now: this.now, actor: 'engine',
      lateWindowMs: options.lateReleaseWindowMs === undefined ? DEFAULT_LATE_WINDOW_MS : options.lateReleaseWindowMs,
      ...(options.releaseTickMs ? { tickMs: options.releaseTickMs } : {}),
      released: (s) => this.sendReleased(s),
      late: (s) => this.emit('schedule-late', s),
      onError,
    });
  }

  /** How the callback listener is doing (the settings screen shows it). */
  get callbackListener(): CallbackListenerState {
    return { ...this.callbackState };
  }

  get connectionState(): ConnectionEvent {
    return this.connection;
  }

  /** URL sent as callbackUrl when a payout has none (profile setting or the running listener). */
  get callbackUrl(): string | null {
    return this.defaultCallbackUrl;
  }

  /** Starts background work and resumes whatever the journal says was interrupted. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.singlesAbort = new AbortController();
    if (!this.sends) return;
    if (this.options.callbackListen) await this.startListener(this.options.callbackListen);
    await this.recover();
    this.poller.start();
    this.releases.start();
    if (this.options.balancesIntervalMs) this.balances.start(this.options.balancesIntervalMs);
  }

  /**
   * Starts the callback listener. A failure (port in use, no such address) is shown, never fatal: callbacks
   * only save reads, sending and polling go on without them.
   */
  private async startListener(listen: NonNullable<PayoutEngineOptions<J>['callbackListen']>): Promise<void> {
    const publicBase = listen.publicBaseUrl ?? null;
    // Reachable from elsewhere only when the user said where from: without a public URL nobody else is meant to call.
    const host = publicBase || isLoopbackHost(listen.host) ? listen.host : '127.0.0.1';
    const note = host !== listen.host ? `listening on ${host} only: listening on ${listen.host} needs a public callback URL` : null;
    const announced = publicBase ? publicCallbackUrl(publicBase, this.listener.pathSecret) : null;
    try {
      await this.listener.start(host, listen.port);
      this.defaultCallbackUrl ??= announced ?? this.listener.url();
      this.callbackState = { state: 'listening', boundTo: this.listener.boundTo(), announcedUrl: this.defaultCallbackUrl, message: note };
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      // A public URL may lead to another listener (a proxy); the loopback one is this listener's own and is not announced dead.
      this.defaultCallbackUrl ??= announced;
      this.callbackState = {
        state: 'failed', boundTo: null, announcedUrl: this.defaultCallbackUrl,
        message: `could not listen on ${host}:${listen.port} (${reason}); payouts are still sent and their status polled`,
      };
      this.emit('background-error', new Error(`callback listener: ${this.callbackState.message}`));
    }
  }

  /** False on a desk of a team that leaves requests to the team's sender desks (PayoutEngineOptions.sends). */
  get sends(): boolean {
    return this.options.sends !== false;
  }

  /**
   * Another desk of the team stored or resumed it: a sender desk sends a RUNNING batch it is not running,
   * and a single payout still QUEUED, as its own (the claims let exactly one desk send each payout).
   */
  async takeUp(kind: 'batch' | 'payout', id: string): Promise<void> {
    if (!this.started || !this.sends) return;
    if (kind === 'batch') {
      if ((await this.journal.getBatch(id))?.state === 'RUNNING') this.runs.start(id);
      return;
    }
    const p = await this.journal.getPayment('payout', id);
    if (p && p.batchId === null && (p.state === 'QUEUED' || p.state === 'UNKNOWN')) void this.sendSingle(id).catch(() => undefined);
  }

  /** Stops sending (requests on the wire finish and are recorded); batches stay RUNNING for the next start. */
  async stop(): Promise<void> {
    this.started = false;
    // No new reads from here on (reads in flight are awaited below); sends on the wire are seen through.
    const pollerStopped = this.poller.stop();
    await this.releases.stop();
    this.singlesAbort.abort();
    await this.runs.stopAll();
    await Promise.allSettled([...this.singles.values()]);
    this.balances.stop();
    await Promise.all([pollerStopped, this.listener.stop(), this.balances.settle()]);
    if (this.options.callbackListen) this.callbackState = { ...this.callbackState, state: 'stopped', boundTo: null };
  }

  validate(draft: PayoutDraft): FieldProblem[] {
    return validatePayout(draft, this.options.maxAmountMinor ?? undefined);
  }

  /**
   * Validates, stores (QUEUED, id fixed) and sends one payout. Waits up to `waitMs` for the gateway's
   * answer, then returns the journal's record either way; sending goes on in the background. When it
   * cannot be sent for a reason a person must fix, it is HELD and PAYOUT_HELD says why.
   */
  async submitPayout(draft: PayoutDraft, opts: { waitMs?: number; actor?: string; preparedBy?: string; executeOn?: Execution; possibleDuplicate?: boolean } = {}): Promise<PaymentRecord> {
    const problems = this.validate(draft);
    if (problems.length > 0) throw new EngineError('VALIDATION', problems.map((p) => p.message).join('; '), [{ rowNumber: null, problems }]);
    const payment: NewPayment = { ...this.toNewPayment(draft), ...(opts.possibleDuplicate ? { details: { possibleDuplicate: true } } : {}) };
    const execution = opts.executeOn ?? null;
    await this.signAsPreparer({ kind: 'payout', id: draft.idPayout }, opts.preparedBy, [payment], null, execution, opts.possibleDuplicate ? [draft.idPayout] : []);
    await this.journal.insertPayment('payout', { ...payment, ...(opts.preparedBy ? { preparedBy: opts.preparedBy } : {}), ...(execution ? { schedule: execution } : {}) }, opts.actor ?? deskActor());
    if (execution) {
      // Held by its schedule: a sender desk releases it at its time.
      this.releases.wake();
      return this.mustGet('payout', draft.idPayout);
    }
    return this.sendAndReport(draft.idPayout, opts.waitMs ?? 15_000);
  }

  /** A person releases a held payout after fixing the cause: it is sent now, as submitPayout sends. */
  async releasePayout(id: string, opts: { waitMs?: number; actor?: string } = {}): Promise<PaymentRecord> {
    const p = await this.mustGet('payout', id);
    await this.refuseUnreleased('payout', id, 'released by hand');
    if (!(await this.journal.releaseHeld('payout', id, opts.actor ?? deskActor()))) throw new EngineError('BAD_STATE', `payout ${id} is ${p.state.toLowerCase()}, not held`);
    return this.sendAndReport(id, opts.waitMs ?? 15_000);
  }

  /** A person decides a held payout is not to be sent: DISCARDED, final, nothing sent. */
  async discardPayout(id: string, opts: { actor?: string; reason?: string } = {}): Promise<PaymentRecord> {
    const p = await this.mustGet('payout', id);
    const schedule = await this.journal.schedule('payout', id);
    if (schedule && (schedule.state === 'SCHEDULED' || schedule.state === 'LATE')) return this.cancelScheduled('payout', id, opts.actor ?? deskActor(), opts.reason ?? 'discarded by a person before its release');
    if (!(await this.journal.discardHeld('payout', id, opts.actor ?? deskActor(), opts.reason ?? 'discarded by a person while held'))) {
      throw new EngineError('BAD_STATE', `payout ${id} is ${p.state.toLowerCase()}, not held`);
    }
    const record = await this.mustGet('payout', id);
    this.emit('status-changed', { kind: 'payout', id, status: 'DISCARDED', previousStatus: p.status, final: true, source: 'local', observedAt: this.now(), batchId: p.batchId });
    return record;
  }

  private async sendAndReport(id: string, waitMs: number): Promise<PaymentRecord> {
    try {
      await waitAtMost(this.sendSingle(id), waitMs);
    } catch (error) {
      if (!(error instanceof EngineHaltError)) throw error;
    }
    const record = await this.mustGet('payout', id);
    if (record.state === 'HELD') {
      // The instruction comes first: a long gateway message may be cut when shown.
      throw new EngineError('PAYOUT_HELD', `Payout ${id} is held, not sent; it will not be sent until a person releases it after fixing the cause (or discards it). Reason: ${record.lastError ?? 'a person must act'}`);
    }
    return record;
  }

  /** Stores a whole batch (all rows valid, or nothing is stored) and starts sending it. */
  async submitBatch(input: BatchSubmission): Promise<BatchRecord> {
    const invalid = input.rows
      .map((row, i) => ({ rowNumber: row.rowNumber ?? i + 1, problems: this.validate(row) }))
      .filter((r) => r.problems.length > 0);
    if (invalid.length > 0) throw new EngineError('VALIDATION', `${plural(invalid.length, 'row')} ${invalid.length === 1 ? 'is' : 'are'} not valid; nothing was stored`, invalid);
    const rows = input.rows.map((r, i) => {
      const details = { ...(r.extra && Object.keys(r.extra).length > 0 ? { extra: r.extra } : {}), ...(r.possibleDuplicate ? { possibleDuplicate: true } : {}) };
      return { ...this.toNewPayment(r), rowNumber: r.rowNumber ?? i + 1, ...(Object.keys(details).length > 0 ? { details } : {}) };
    });
    // A batch needs an id before it can be signed: the journal's own when none is given.
    const id = input.id ?? (this.options.prepare && input.preparedBy ? newPaymentId() : undefined);
    if (id) await this.signAsPreparer({ kind: 'batch', id }, input.preparedBy, rows, input.sha256, input.executeOn ?? null, rows.filter((r) => r.details?.possibleDuplicate === true).map((r) => ({ id: r.id, rowNumber: r.rowNumber })));
    const batch = await this.journal.createBatch({
      ...(input.executeOn ? { schedule: input.executeOn } : {}),
      ...(id ? { id } : {}),
      fileName: input.fileName,
      sha256: input.sha256,
      rows,
      ...(input.actor ? { actor: input.actor } : {}),
      ...(input.preparedBy ? { preparedBy: input.preparedBy } : {}),
    });
    // A scheduled batch waits for its time (the release loop starts it); any other is sent now.
    if (input.executeOn) this.releases.wake();
    else this.runs.start(batch.id);
    return batch;
  }

  /**
   * Dual control: the preparer signs the subject's rows as the journal will hold them (in the journal's row
   * order), before they are stored. Throws EngineError NOT_SIGNED (nothing stored) when it cannot be signed.
   */
  private async signAsPreparer(
    subject: { kind: 'payout' | 'batch'; id: string },
    preparedBy: string | undefined,
    rows: readonly (Omit<ManifestRow, 'callbackUrl'> & { callbackUrl?: string | null | undefined; rowNumber?: number | undefined })[],
    fileSha256: string | null,
    execution: Execution | null = null,
    possibleDuplicates: readonly (string | { id: string; rowNumber?: number | undefined })[] = [],
  ): Promise<void> {
    if (!this.options.prepare || !preparedBy) return;
    const ordered = rows.map((r, i) => ({ r, i })).sort((a, b) => (a.r.rowNumber ?? 0) - (b.r.rowNumber ?? 0) || a.i - b.i).map(({ r }) => r);
    // In the journal's row order, as the gate reads them back.
    const flagged = new Set(possibleDuplicates.map((d) => (typeof d === 'string' ? d : d.id)));
    const manifestRows: ManifestRow[] = ordered.map((r) => ({ id: r.id, ...payoutFieldsOf(r), callbackUrl: r.callbackUrl ?? null }));
    try {
      await this.options.prepare(subject, preparedBy, { rows: manifestRows, fileSha256, execution, possibleDuplicates: ordered.filter((r) => flagged.has(r.id)).map((r) => r.id) });
    } catch (error) {
      throw new EngineError('NOT_SIGNED', `Nothing was stored or sent: its preparer's signature could not be made (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  async resumeBatch(batchId: string, actor = deskActor()): Promise<BatchRecord> {
    const batch = await this.mustGetBatch(batchId);
    if (batch.state === 'CANCELLED') throw new EngineError('BAD_STATE', `batch ${batchId} was cancelled and cannot be resumed`);
    await this.refuseUnreleased('batch', batchId, 'resumed');
    if (batch.state !== 'RUNNING') await this.journal.setBatchState(batchId, 'RUNNING', null, actor);
    this.runs.start(batchId);
    return await this.mustGetBatch(batchId);
  }

  /**
   * "Retry failed rows": the attempts a person reviewed, sent again as new attempts of the same intents,
   * if and only if they are exactly the batch's retryable attempts (see Journal.retryableAttempts).
   */
  async retryFailed(batchId: string, reviewedIds: readonly string[], actor = deskActor(), preparedBy?: string): Promise<BatchRecord> {
    const batch = await this.mustGetBatch(batchId);
    try {
      // The ids are made here, so the preparer signs the retry batch as the journal will store it (it checks
      // again, in its transaction, that the rows retried are still exactly these).
      const retried = (await this.journal.retryableAttempts(batchId, NOT_PAID_STATUSES)).filter((p) => reviewedIds.includes(p.id));
      const ids = retried.map(() => newPaymentId());
      const retryId = newPaymentId();
      const rows = retried.map((p, i) => ({ ...p, id: ids[i]!, retryOf: p.id, callbackUrl: p.callbackUrl ?? undefined, rowNumber: p.rowNumber ?? undefined }));
      await this.signAsPreparer({ kind: 'batch', id: retryId }, preparedBy, rows, retryBatchSha256(batchId, rows));
      let next = 0;
      const retry = await this.journal.retryBatch({
        batchId, reviewedIds, notPaid: NOT_PAID_STATUSES, actor, id: retryId, newId: () => ids[next++] ?? newPaymentId(), ...(preparedBy ? { preparedBy } : {}),
        fileName: `${batch.fileName.replace(/\.[^.]+$/, '')}-retry.csv`,
      });
      this.runs.start(retry.id);
      return retry;
    } catch (error) {
      if (error instanceof JournalError && (error.code === 'NOTHING_TO_RETRY' || error.code === 'RETRY_ROWS_CHANGED')) throw new EngineError(error.code, error.message);
      throw error;
    }
  }

  /** Ids of the batch's attempts "retry failed rows" would send again now. */
  async retryableIds(batchId: string): Promise<Set<string>> {
    return new Set((await this.journal.retryableAttempts(batchId, NOT_PAID_STATUSES)).map((p) => p.id));
  }

  async pauseBatch(batchId: string, actor = deskActor()): Promise<BatchRecord> {
    const batch = await this.mustGetBatch(batchId);
    if (batch.state !== 'RUNNING') throw new EngineError('BAD_STATE', `batch ${batchId} is ${batch.state.toLowerCase()}, not running`);
    await this.journal.setBatchState(batchId, 'PAUSED', 'paused by the user', actor);
    await this.runs.stop(batchId);
    this.emit('batch-progress', await batchProgress(this.journal, batchId, this.liveRate(batchId), this.batchLive(batchId)));
    return await this.mustGetBatch(batchId);
  }

  /** Stops sending; payouts the gateway already has stay and keep being tracked; unsent ones are cancelled. */
  async cancelBatch(batchId: string, actor = deskActor()): Promise<BatchRecord> {
    const batch = await this.mustGetBatch(batchId);
    if (batch.state === 'CANCELLED' || batch.state === 'COMPLETED') return batch;
    if (batch.state === 'SCHEDULED') {
      await this.cancelScheduled('batch', batchId, actor, 'cancelled by the user before its release');
      return await this.mustGetBatch(batchId);
    }
    await this.journal.setBatchState(batchId, 'CANCELLED', 'cancelled by the user', actor);
    await this.runs.stop(batchId);
    await this.settleUnsent(batchId);
    this.emit('batch-progress', await batchProgress(this.journal, batchId, this.liveRate(batchId), this.batchLive(batchId)));
    return await this.mustGetBatch(batchId);
  }

  /** Resolves when the batch's current run ends (sent, paused, cancelled or halted). */
  async waitForBatch(batchId: string): Promise<BatchRecord> {
    const run = this.runs.get(batchId);
    if (run) await run.done;
    return await this.mustGetBatch(batchId);
  }

  /**
   * The sending rate of the batch's run going now, 0 without one: a progress report made outside the run (a status
   * that settled, a screen that asked, the connection) must not show "0.0/s" while rows are being sent.
   */
  liveRate(batchId: string): number {
    const run = this.runs.get(batchId);
    // A run being stopped (a pause, a cancel) sends nothing new.
    return run && !run.stopping ? run.ratePerSec() : 0;
  }

  async batchProgress(batchId: string): Promise<BatchProgressEvent> {
    await this.mustGetBatch(batchId);
    return await batchProgress(this.journal, batchId, this.liveRate(batchId), this.batchLive(batchId));
  }

  /** Reads one payment from the gateway now. */
  async refreshPayment(kind: PaymentKind, id: string): Promise<PaymentRecord> {
    await this.mustGet(kind, id);
    await this.poller.refresh(kind, id, 'poll');
    return await this.mustGet(kind, id);
  }

  refreshBalances(currencyCodes?: string[]): Promise<BalanceSnapshot[]> {
    if (!this.sends) return Promise.reject(new EngineError('NOT_SENDER', NOT_SENDER_MESSAGE));
    return this.balances.refresh(currencyCodes);
  }

  // ---- the calendar ----

  /** A scheduled subject not released yet is not sent by hand: BAD_STATE says when it leaves and how to change that. */
  private async refuseUnreleased(kind: ScheduledKind, id: string, verb: string): Promise<void> {
    const schedule = await this.journal.schedule(kind, id);
    if (!schedule || (schedule.state !== 'SCHEDULED' && schedule.state !== 'LATE')) return;
    const when = describeExecution(schedule);
    throw new EngineError('BAD_STATE', schedule.state === 'LATE'
      ? `${kind} ${id} was scheduled for ${when} and is past its late window: confirm its late release instead`
      : `${kind} ${id} is scheduled for ${when} and cannot be ${verb} before then; move its date to send it earlier (it needs approving again)`);
  }

  /** A release this desk just made: the batch runs, the payout is sent (each through the approval gate). */
  private sendReleased(s: ScheduleRecord): void {
    this.emit('schedule-released', s);
    if (!this.sends) return;
    if (s.kind === 'batch') this.runs.start(s.id);
    else void this.sendSingle(s.id).catch(() => undefined);
  }

  /** Looks at the calendar now (the release loop's next tick otherwise). */
  releaseDue(): Promise<void> {
    return this.releases.tick();
  }

  /**
   * Moves a scheduled subject before its release. Under dual control its preparer signs it again with the new time
   * (the time is in the manifest), so approvals given for the old time no longer count.
   */
  async moveScheduled(kind: ScheduledKind, id: string, to: Execution, opts: { actor?: string; preparedBy?: string } = {}): Promise<ScheduleRecord> {
    const before = await this.journal.schedule(kind, id);
    if (!before) throw new EngineError('NOT_FOUND', `${kind} ${id} has no schedule`);
    if (before.state !== 'SCHEDULED' && before.state !== 'LATE') throw new EngineError('BAD_STATE', `${kind} ${id} was ${before.state === 'RELEASED' ? 'released already' : 'cancelled'}; it cannot be moved`);
    let signAt: ((at: Execution) => Promise<void>) | null = null;
    if (opts.preparedBy) {
      const preparedBy = opts.preparedBy;
      // Signed again only as it was signed: a row rewritten in the journal since would otherwise be signed now.
      const problem = await this.options.approvalGate?.preparationProblem?.({ kind, id });
      if (problem) throw new EngineError('NOT_SIGNED', `Nothing was moved: ${problem.replace(/^Nothing was sent: /, '')}; cancel it and prepare it again`);
      const rows = (await this.journal.manifestRows(kind, id)).map((r, i) => ({ ...r, rowNumber: i + 1 }));
      const fileSha256 = kind === 'batch' ? ((await this.journal.getBatch(id))?.sha256 ?? null) : null;
      const duplicates = await this.journal.possibleDuplicateIds(kind, id);
      signAt = (at) => this.signAsPreparer({ kind, id }, preparedBy, rows, fileSha256, at, duplicates);
      await signAt(to);
    }
    if (!(await this.journal.moveSchedule(kind, id, to, opts.actor ?? deskActor()))) {
      // Released (or cancelled) between the signature and the move: the preparer's newest signature goes back to the
      // time the journal holds, which they had signed already, so the release is not held for naming the new time.
      const now = await this.journal.schedule(kind, id);
      if (signAt && now) await signAt(now).catch(() => undefined);
      throw new EngineError('BAD_STATE', `${kind} ${id} was released or cancelled meanwhile; it was not moved`);
    }
    this.releases.wake();
    return (await this.journal.schedule(kind, id))!;
  }

  /** Cancels a scheduled subject before its release: a batch is cancelled with its rows, a payout discarded. */
  async cancelScheduled(kind: 'payout', id: string, actor?: string, reason?: string): Promise<PaymentRecord>;
  async cancelScheduled(kind: 'batch', id: string, actor?: string, reason?: string): Promise<BatchRecord>;
  async cancelScheduled(kind: ScheduledKind, id: string, actor = deskActor(), reason = 'cancelled by a person before its release'): Promise<PaymentRecord | BatchRecord> {
    const before = kind === 'payout' ? await this.mustGet('payout', id) : await this.mustGetBatch(id);
    if (!(await this.journal.cancelSchedule(kind, id, actor, reason))) {
      const s = await this.journal.schedule(kind, id);
      throw new EngineError(s ? 'BAD_STATE' : 'NOT_FOUND', s ? `${kind} ${id} was ${s.state === 'RELEASED' ? 'released already' : 'cancelled already'}` : `${kind} ${id} has no schedule`);
    }
    if (kind === 'batch') {
      this.emit('batch-progress', await batchProgress(this.journal, id, 0, this.batchLive(id)));
      return await this.mustGetBatch(id);
    }
    this.emit('status-changed', { kind: 'payout', id, status: 'DISCARDED', previousStatus: (before as PaymentRecord).status, final: true, source: 'local', observedAt: this.now(), batchId: null });
    return await this.mustGet('payout', id);
  }

  /** A person confirms the release of a schedule past its late window: released now, and sent through the gate. */
  async confirmLateRelease(kind: ScheduledKind, id: string, actor = deskActor()): Promise<ScheduleRecord> {
    const released = await this.journal.releaseSchedule(kind, id, { actor, from: 'LATE' });
    if (!released) {
      const s = await this.journal.schedule(kind, id);
      throw new EngineError(s ? 'BAD_STATE' : 'NOT_FOUND', s ? `${kind} ${id} is ${s.state.toLowerCase()}, not waiting for a late release` : `${kind} ${id} has no schedule`);
    }
    this.sendReleased(released);
    return released;
  }

  // ---- internals ----

  private async recover(): Promise<void> {
    // What was on the wire when the desk stopped has an unknown outcome: read back before anything else.
    await this.journal.markInterruptedSendsUnknown('payout', 'the desk stopped while it was being sent');
    for (const batch of await this.journal.batchesIn(['PAUSED', 'CANCELLED'])) await this.settleUnsent(batch.id, batch.state === 'CANCELLED');
    for (const batch of await this.journal.batchesIn(['RUNNING'])) this.runs.start(batch.id);
    for (const p of await this.journal.unsentPayments('payout')) if (p.batchId === null) void this.sendSingle(p.id).catch(() => undefined);
  }

  /**
   * Unknown rows of a stopped batch are read with GET (never sent again while it is stopped); a cancelled
   * batch's QUEUED rows, which the gateway certainly does not have, are cancelled.
   */
  private async settleUnsent(batchId: string, cancel = true): Promise<void> {
    for (const p of await this.journal.unsentPayments('payout', batchId)) {
      if (p.state === 'SENDING' || p.state === 'UNKNOWN') await this.sender.resolveUncertain(p.id);
    }
    const batch = await this.journal.getBatch(batchId);
    if (cancel && batch?.state === 'CANCELLED') {
      const queued = (await this.journal.unsentPayments('payout', batchId)).filter((p) => p.state === 'QUEUED').map((p) => p.id);
      if (queued.length > 0) await this.journal.cancelUnsent('payout', queued, deskActor());
    }
  }

  /** A run of the batch, as the engine sends it (BatchRuns keeps and starts it). */
  private newRun(batchId: string): BatchRun {
    const limit = this.gateway.limiter.usage().limit;
    const approved = this.approved;
    return new BatchRun(batchId, {
      journal: this.journal,
      sender: this.sender,
      concurrency: this.options.concurrency ?? Math.min(256, Math.max(4, limit * 2)),
      now: this.now,
      onProgress: (e) => this.emit('batch-progress', e),
      live: (id) => this.batchLive(id),
      onError: (e) => this.emit('background-error', e),
      ...(approved ? { gate: (id: string, need: 'first' | 'resend') => approved.batchClearance(id, need) } : {}),
    });
  }

  private sendSingle(id: string): Promise<SendOutcome> {
    // Stored QUEUED: one of the team's sender desks sends it.
    if (!this.sends) return Promise.resolve('not-unsent');
    const existing = this.singles.get(id);
    if (existing) return existing;
    const signal = this.singlesAbort.signal;
    const send = this.approved ? this.approved.sendPayout(id, signal) : this.sender.send(id, signal);
    const work = send.finally(() => this.singles.delete(id));
    this.singles.set(id, work);
    work.catch((e: unknown) => {
      if (!(e instanceof EngineHaltError)) this.emit('background-error', e instanceof Error ? e : new Error(String(e)));
    });
    return work;
  }

  /** Whether a run sends this batch now, and since when the gateway is unreachable: the reason a batch waits or stopped. */
  batchLive(batchId: string): BatchLiveState {
    const run = this.runs.get(batchId);
    const c = this.connection;
    return {
      running: run !== undefined && !run.stopping, unreachable: c.state === 'offline' ? { since: c.at, message: c.message } : null, ...(this.sends ? {} : { senderElsewhere: true }),
    };
  }

  private setConnection(state: 'online' | 'offline', message: string | null): void {
    if (this.connection.state === state) return;
    this.connection = { state, message, at: this.now() };
    this.emit('connection', this.connection);
    // A running batch now waits for the gateway (or goes on): its state's words change with it.
    for (const batchId of this.runs.batchIds()) {
      this.runs.track(batchProgress(this.journal, batchId, this.liveRate(batchId), this.batchLive(batchId)).then(
        (e) => this.emit('batch-progress', e),
        (e: unknown) => this.emit('background-error', e instanceof Error ? e : new Error(String(e))),
      ));
    }
  }

  private toNewPayment(d: PayoutDraft): NewPayment {
    return {
      id: d.idPayout,
      ...payoutFieldsOf(d),
      callbackUrl: d.callbackUrl ?? this.defaultCallbackUrl ?? undefined,
      reference: d.reference,
    };
  }

  private async mustGet(kind: PaymentKind, id: string): Promise<PaymentRecord> {
    const p = await this.journal.getPayment(kind, id);
    if (!p) throw new EngineError('NOT_FOUND', `no ${kind} ${id} in this profile's journal`);
    return p;
  }

  private async mustGetBatch(batchId: string): Promise<BatchRecord> {
    const b = await this.journal.getBatch(batchId);
    if (!b) throw new EngineError('NOT_FOUND', `no batch ${batchId} in this profile's journal`);
    return b;
  }
}

/** Waits for `work` but no longer than `ms`; rejections of `work` within that time are passed on. */
async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
