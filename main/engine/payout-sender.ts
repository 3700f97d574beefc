// Sends one journaled payout until the gateway has it (DESIGN.md §4): the id never changes, SENDING is
// committed before the HTTP call, a 409 is read back with GET, retryable failures are retried with
// the same id and capped backoff (never marked failed), and a SENDING row of unknown outcome is
// resolved with GET before anything is sent again.
import { payoutFieldsOf } from '../domain/payout';
import { isFinalStatus } from '../domain/status';
import { GatewayError, isGatewayError, SendCancelledError } from '../gateway/errors';
import type { JournalPort, PaymentKind, PaymentRecord, SendClaim } from '../journal';
import type { StatusSource } from '../domain/status';
import type { StatusChangedEvent } from './events';
import { statusObservation } from './observation';
import type { GatewayStatusRead, PayoutGatewayPort, PayoutRequest } from './ports';
import { backoffDelay, nextReadAt, sleep, type BackoffOptions } from './timing';
import { CodedError } from '../domain/coded-error';

/**
 * 'unapproved': a first create was not sent because its approval no longer holds; ask the gate again.
 * 'held-elsewhere': another desk of the team holds the payout's claim; it is that desk's to send.
 */
export type SendOutcome = 'accepted' | 'rejected' | 'mismatch' | 'unknown' | 'aborted' | 'not-unsent' | 'unapproved' | 'held-elsewhere';

export interface SendOptions {
  /**
   * Dual control: the body a create of this row may carry, asked before the create and again right before it
   * leaves, for a first send and a re-send of an unknown outcome alike. Null (or another body at the second
   * ask) sends nothing and ends the send with 'unapproved', the row left as it was. Absent: the row's own fields.
   */
  approved?: (row: PaymentRecord) => PayoutRequest | null;
}

/**
 * Sending must stop until a person acts: the gateway refuses us (credentials, permissions, API version)
 * or the desk itself cannot send (no key, keychain locked, profile misconfigured). `reason` is what the
 * person is shown.
 */
export class EngineHaltError extends CodedError<'ENGINE_HALTED'> {
  constructor(
    readonly reason: string,
    readonly gatewayError: GatewayError | null = null,
  ) {
    super('ENGINE_HALTED', `sending stopped: ${reason}`);
  }
}

const HALTING = new Set(['unauthorized', 'forbidden', 'unsupported-version']);
/** Errors of the desk's own setup that a person must fix (key custody, keychain, profile). */
const SETUP_ERRORS = new Set(['KeyCustodyError', 'KeyStoreError', 'ProfileError']);
/** Connection failures that happen before a request can reach the gateway. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * True when the gateway cannot have stored the payout: it refused the request (429, 401, 403, version)
 * or the request never left this machine. A 5xx, a time-out, a reset or a garbled answer may all come
 * after the payout was stored, so they are not.
 */
function certainlyNotStored(e: GatewayError): boolean {
  return HALTING.has(e.kind) || e.kind === 'rate-limited' || (e.kind === 'network' && NEVER_CONNECTED.has(e.code));
}

/** The reason a person must fix before this can be sent, or null for a passing or unexpected failure. */
function mustBeFixed(e: unknown): string | null {
  if (isGatewayError(e)) return HALTING.has(e.kind) ? e.message : null;
  return e instanceof Error && SETUP_ERRORS.has(e.name) ? e.message : null;
}

export interface SenderDeps {
  journal: JournalPort;
  gateway: PayoutGatewayPort;
  finalStatuses: readonly string[];
  pollIntervalMs: number;
  backoff: BackoffOptions;
  now: () => number;
  onStatus: (e: StatusChangedEvent) => void;
  onConnection: (state: 'online' | 'offline', message: string | null) => void;
  random?: () => number;
}

/** What the gateway is sent for a journaled payout: its payout fields, nothing local. */
export function payoutRequestOf(p: PaymentRecord): PayoutRequest {
  return payoutFieldsOf(p);
}

export class PayoutSender {
  constructor(private readonly deps: SenderDeps) {}

  /**
   * Sends until accepted, rejected, unknown with re-sends refused, or aborted. Throws EngineHaltError when
   * a person must fix something first; a single payout is then HELD, a batch row stays QUEUED (its batch
   * pauses). The rules on outcomes (DESIGN.md §4) are all here and in the journal's guards:
   * - a try with no definitive answer makes the payout UNKNOWN; from then on only a GET that finds it, or
   *   the gateway taking a re-send of the same id, settles it; it is never rejected or cancelled;
   * - a 4xx is final (REJECTED) only for an id with no earlier try of unknown outcome.
   */
  async send(id: string, signal?: AbortSignal, options: SendOptions = {}): Promise<SendOutcome> {
    const { journal } = this.deps;
    if (signal?.aborted) return 'aborted';
    // The claim comes first, before any read of the gateway or wait for a rate slot: a payout another desk
    // of the team holds is that desk's to send ('held-elsewhere'), and one this desk holds is nobody else's.
    const claim = await journal.claimSend('payout', id);
    if (!claim) {
      const row = await journal.getPayment('payout', id);
      if (!row) throw new Error(`payout ${id} is not in the journal`);
      return row.state === 'QUEUED' || row.state === 'SENDING' || row.state === 'UNKNOWN' ? 'held-elsewhere' : 'not-unsent';
    }
    try {
      return await this.sendClaimed(id, claim, signal, options);
    } finally {
      // What the attempt ended with is written; a claim that cannot be given back (the team database went
      // away) stays this desk's until its lease runs out, when another desk treats the payout as unknown.
      await Promise.resolve()
        .then(() => claim.release())
        .catch(() => undefined);
    }
  }

  private async sendClaimed(id: string, claim: SendClaim, signal: AbortSignal | undefined, options: SendOptions): Promise<SendOutcome> {
    const { journal } = this.deps;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) return 'aborted';
      // The first attempt may start from the row the claim read; confirm() still decides whether it leaves.
      const row = (attempt === 1 ? claim.payment : undefined) ?? (await journal.getPayment('payout', id));
      if (!row) throw new Error(`payout ${id} is not in the journal`);
      if (row.state !== 'QUEUED' && row.state !== 'SENDING' && row.state !== 'UNKNOWN') return 'not-unsent';
      const unknownBefore = row.state !== 'QUEUED' || row.unknownSince !== null;
      const sent = { mayHaveLeft: false };
      try {
        return await this.attempt(row, claim, sent, signal, options.approved);
      } catch (e) {
        const settled = await this.recordFailure(e, row, unknownBefore, sent.mayHaveLeft);
        if (settled !== 'try-again') return settled;
        if (!isGatewayError(e)) throw e;
        if (e.kind === 'network' || e.kind === 'timeout') this.deps.onConnection('offline', e.message);
        const delay = backoffDelay(attempt, this.deps.backoff, e.details.retryAfterMs ?? 0, this.deps.random);
        if (!(await sleep(delay, signal))) return 'aborted';
      }
    }
  }

  /**
   * Writes down what a failed try means for the payout and says whether sending goes on. Throws
   * EngineHaltError (a person must act) and the desk's own faults; returns the outcome when the payout is
   * settled for now, or 'try-again'.
   */
  private async recordFailure(e: unknown, row: PaymentRecord, unknownBefore: boolean, mayHaveLeft: boolean): Promise<'rejected' | 'unknown' | 'try-again'> {
    const { journal } = this.deps;
    const id = row.id;
    // Whether a request may have left: this desk confirmed its claim for it (known here even when a team
    // journal's SENDING mark did not get written), or the journal says SENDING.
    const claimed = mayHaveLeft || (await journal.getPayment('payout', id))?.state === 'SENDING';
    const nextRead = this.deps.now() + this.deps.pollIntervalMs;
    const fix = mustBeFixed(e);
    if (fix !== null) {
      if (claimed && !(isGatewayError(e) && certainlyNotStored(e))) await journal.markUnknown('payout', id, fix, nextRead);
      else if (row.batchId === null && !unknownBefore) {
        // Told to listeners too: a payout held while nobody waits on it (a restart) still reaches a person.
        if (await journal.markHeld('payout', id, fix)) this.emit(row, 'HELD', 'local', false);
      } else await journal.markRetrying('payout', id, fix);
      throw new EngineHaltError(fix, isGatewayError(e) ? e : null);
    }
    if (!isGatewayError(e)) {
      // A fault of the desk itself: a request that may have left is of unknown outcome.
      if (claimed) await journal.markUnknown('payout', id, `the desk failed while sending: ${e instanceof Error ? e.message : String(e)}`, nextRead);
      throw e;
    }
    if (e.kind === 'validation') {
      if (!unknownBefore && (await journal.markLocalFinal('payout', id, 'REJECTED', e.message, { status: e.status, code: e.code }))) {
        this.emit(row, 'REJECTED', 'local', true);
        return 'rejected';
      }
      // An earlier try of this id may still land: its refusal of a re-send proves nothing.
      await journal.markUnknown('payout', id, `${e.message}; an earlier send of this id has no answer yet, so it is checked with GET`, nextRead, true);
      this.emit(row, 'UNKNOWN', 'local', false);
      return 'unknown';
    }
    if (!claimed || certainlyNotStored(e)) await journal.markRetrying('payout', id, e.message);
    else {
      await journal.markUnknown('payout', id, e.message, nextRead);
      this.emit(row, 'UNKNOWN', 'local', false);
    }
    return 'try-again';
  }

  /**
   * Settles an unknown (or interrupted) payout without sending: found at the gateway → its status; not
   * found → it stays UNKNOWN and is read again later (an earlier send may still land). Returns null when
   * the gateway could not be asked.
   */
  async resolveUncertain(id: string): Promise<'accepted' | 'mismatch' | 'unknown' | null> {
    const row = await this.deps.journal.getPayment('payout', id);
    if (!row || (row.state !== 'SENDING' && row.state !== 'UNKNOWN')) return null;
    // Why a re-send was refused (the gateway, or dual control) stays what a person reads: a read changes nothing of it.
    const said = async (message: string): Promise<string> => (row.lastError && !(await this.deps.journal.resendAllowed('payout', id)) ? row.lastError : message);
    try {
      const read = await this.deps.gateway.getPayout(id);
      return await this.accept(row, read, 'poll');
    } catch (e) {
      if (isGatewayError(e, 'not-found')) {
        await this.deps.journal.markUnknown('payout', id, await said('not found at the gateway yet; an earlier send may still land, so it is read again'), this.deps.now() + this.deps.pollIntervalMs);
        return 'unknown';
      }
      if (!isGatewayError(e)) throw e;
      // Could not ask: it stays of unknown outcome and is asked again later (never left SENDING with no next read).
      await this.deps.journal.markUnknown('payout', id, await said(`not read yet: ${e.message}`), this.deps.now() + this.deps.pollIntervalMs);
      return null;
    }
  }

  private async attempt(row: PaymentRecord, claim: SendClaim, sent: { mayHaveLeft: boolean }, signal: AbortSignal | undefined, approved: SendOptions['approved']): Promise<SendOutcome> {
    const { journal, gateway } = this.deps;
    if (row.state === 'SENDING' || row.state === 'UNKNOWN') {
      // An earlier send ended without a clear answer (crash, cut connection): ask before sending. A re-send,
      // if one is needed, goes through the approval check below like a first send.
      try {
        return await this.accept(row, await gateway.getPayout(row.id), 'poll');
      } catch (e) {
        if (!isGatewayError(e, 'not-found')) throw e;
      }
      // Not there (yet). The same id may be sent again unless the gateway already refused a re-send.
      if (!(await journal.resendAllowed('payout', row.id))) return 'unknown';
    }
    // The claim is confirmed when the rate slot is ours, right before the request leaves (SQLite commits
    // SENDING then; a team desk's claim, durable since before the slot, is checked to hold): a pause or
    // cancel while it waits for the slot sends nothing and leaves the row as it was. One already on the
    // wire is seen through.
    if (signal?.aborted) return 'aborted';
    // Under dual control the body is the approved manifest row's, never the journal row's own fields.
    const body = approved ? approved(row) : payoutRequestOf(row);
    if (body === null) return 'unapproved';
    const bodyText = JSON.stringify(body);
    // Set inside beforeSend, so typed wide (the compiler cannot see the callback's assignments).
    let given = 'aborted' as 'aborted' | 'not-unsent' | 'unapproved' | 'held-elsewhere';
    let claims = 0;
    const beforeSend = (): boolean => {
      const stillApproved = (): boolean => {
        if (!approved) return true;
        // The row as the journal holds it now where that can be read here (SQLite): one rewritten while this send
        // waited for its slot is judged as it now is, never sent as it was read.
        const now = approved(claim.current?.() ?? row);
        return now !== null && JSON.stringify(now) === bodyText;
      };
      if (signal?.aborted) given = 'aborted';
      else if (!stillApproved()) given = 'unapproved';
      else if (!claim.confirm()) given = 'not-unsent';
      else {
        claims++;
        sent.mayHaveLeft = true;
        return true;
      }
      return false;
    };
    try {
      const created = await gateway.createPayout(row.id, body, { beforeSend });
      this.deps.onConnection('online', null);
      return await this.accept(row, { raw: created.raw }, 'create');
    } catch (e) {
      if (e instanceof SendCancelledError) {
        // Stopped before a second try: the transport tries a create again only after a 429, so the first
        // try was not stored. Not SENDING any more (a stopped batch's SENDING row would wait for nothing).
        if (claims > 0 && given === 'aborted') await journal.markRetrying('payout', row.id, 'not sent: stopped while waiting out a 429');
        if (claims > 0 && given === 'unapproved') await journal.markRetrying('payout', row.id, 'not sent: its approvals changed while it waited out a 429');
        // A claim that no longer held at the slot (a team desk's lease ran short) on a payout still unsent: not
        // sent by this desk now; a later run claims it again, or the desk that took it over sends it.
        if (given === 'not-unsent' && ['QUEUED', 'SENDING', 'UNKNOWN'].includes((await journal.getPayment('payout', row.id))?.state ?? '')) return 'held-elsewhere';
        return given;
      }
      if (!isGatewayError(e, 'conflict')) throw e;
      // 409: the gateway already has this id (an earlier attempt got through). Read it and carry on.
      this.deps.onConnection('online', null);
      try {
        return await this.accept(row, await gateway.getPayout(row.id), 'poll');
      } catch (readError) {
        if (!isGatewayError(readError, 'not-found')) throw readError;
        // It says it has the id but shows nothing: only reads settle this one now.
        await journal.markUnknown('payout', row.id, 'the gateway says it has this id but answers "not found" for it', this.deps.now() + this.deps.pollIntervalMs, true);
        return 'unknown';
      }
    }
  }

  /** Records what the gateway holds; a different amount or currency under our id is a MISMATCH. */
  async accept(row: PaymentRecord, read: GatewayStatusRead, source: StatusSource): Promise<'accepted' | 'mismatch'> {
    const { journal } = this.deps;
    if (
      (read.amountMinor !== undefined && read.amountMinor !== row.amountMinor) ||
      (read.currencyCode !== undefined && read.currencyCode.toUpperCase() !== row.currencyCode)
    ) {
      const message = `the gateway holds ${row.id} with ${read.amountMinor ?? '?'} ${read.currencyCode ?? '?'} (minor units), not ${row.amountMinor} ${row.currencyCode}`;
      await journal.markLocalFinal('payout', row.id, 'MISMATCH', message, read.raw);
      this.emit(row, 'MISMATCH', 'local', false);
      return 'mismatch';
    }
    const status = (read.status ?? 'ACCEPTED').toUpperCase();
    const final = isFinalStatus(status, this.deps.finalStatuses);
    const now = this.deps.now();
    await journal.recordObservationSoon('payout', row.id, statusObservation(read, {
      status,
      source,
      isFinal: final,
      nextPollAt: nextReadAt({ status, final, now, ageMs: 0, finalAt: row.finalAt, baseMs: this.deps.pollIntervalMs }),
    }));
    this.emit(row, status, source, final);
    return 'accepted';
  }

  private emit(row: PaymentRecord, status: string, source: StatusSource, final: boolean): void {
    if (row.status === status) return;
    this.deps.onStatus({ kind: row.kind as PaymentKind, id: row.id, status, previousStatus: row.status, final, source, observedAt: this.deps.now(), batchId: row.batchId });
  }
}
