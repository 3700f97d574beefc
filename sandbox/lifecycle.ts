// Timed state machines. Payouts: PENDING → PROCESSING → SUCCESS | FAILED, then SUCCESS → RETURNED (return rule
// timer or admin route). Payins: PENDING → SUCCESS | FAILED (when paid) or EXPIRED (timer). Every status change
// after creation sends a callback when a URL was given.
import { randomInt } from 'node:crypto';
import type { SandboxConfig, PaymentOperatorConfig } from './config';
import type { CallbackDispatcher } from './callbacks';
import { SandboxError } from './errors';
import { feeMinor } from './money';
import type { Account, PayinRecord, PayinStatusValue, PayoutRecord, PayoutStatusValue, SandboxStore } from './store';
import type { TimerSet } from './timers';

export type NewPayout = Pick<
  PayoutRecord,
  | 'idPayout'
  | 'merchantCode'
  | 'amountMinor'
  | 'currencyCode'
  | 'paymentMethodCode'
  | 'paymentOperatorCode'
  | 'account'
  | 'emailAddress'
  | 'callbackUrl'
>;

export type NewPayin = Pick<
  PayinRecord,
  | 'idPayin'
  | 'merchantCode'
  | 'amountMinor'
  | 'currencyCode'
  | 'paymentMethodCode'
  | 'paymentOperatorCode'
  | 'customerAccount'
  | 'emailAddress'
  | 'callbackUrl'
  | 'returnUrl'
>;

export class PaymentLifecycle {
  /** Failure decided at creation, applied when processing ends. */
  private readonly plannedPayoutFailures = new Map<string, string>();
  /** Return decided at creation (return rule), applied payoutReturnMs after SUCCESS. */
  private readonly plannedPayoutReturns = new Map<string, string>();

  constructor(
    private readonly store: SandboxStore,
    private readonly config: SandboxConfig,
    private readonly timers: TimerSet,
    private readonly callbacks: CallbackDispatcher,
  ) {}

  acceptPayout(input: NewPayout): PayoutRecord {
    const now = Date.now();
    const fee = feeMinor(input.amountMinor, this.config.fees[input.currencyCode]);
    const total = input.amountMinor + fee;
    const balance = this.store.balance(input.merchantCode, input.currencyCode);
    let reservedMinor = 0;
    if (balance.availableMinor >= total) {
      balance.availableMinor -= total;
      balance.reservedMinor += total;
      reservedMinor = total;
      const rule = this.outcomeFor(input.account);
      if (rule) this.plannedPayoutFailures.set(input.idPayout, rule);
      const returnReason = rule ? undefined : this.returnFor(input.account);
      if (returnReason) this.plannedPayoutReturns.set(input.idPayout, returnReason);
    } else {
      this.plannedPayoutFailures.set(input.idPayout, this.config.insufficientFundsReason);
    }
    const record: PayoutRecord = {
      ...input,
      feeMinor: fee,
      status: 'PENDING',
      createdAt: now,
      reservedMinor,
      history: [{ status: 'PENDING', at: new Date(now).toISOString() }],
    };
    this.store.payouts.set(record.idPayout, record);
    this.store.onChange();
    this.schedulePayout(record, this.config.timings.payoutPendingMs);
    return record;
  }

  private schedulePayout(record: PayoutRecord, pendingMs: number): void {
    this.timers.after(pendingMs, () => {
      this.setPayoutStatus(record, 'PROCESSING');
      this.timers.after(this.config.timings.payoutProcessingMs, () => this.finishPayout(record));
    });
  }

  /**
   * After a restart from a saved state (`--state`): payments that were on their way carry on. The outcome
   * planned at creation is decided again from the same rules (a payout that reserved nothing fails for funds).
   */
  resumeAfterRestart(): void {
    const now = Date.now();
    const { payoutPendingMs, payoutProcessingMs, payoutReturnMs } = this.config.timings;
    for (const record of this.store.payouts.values()) {
      if (record.status === 'PENDING' || record.status === 'PROCESSING') {
        const failure = record.reservedMinor === 0 ? this.config.insufficientFundsReason : this.outcomeFor(record.account);
        if (failure) this.plannedPayoutFailures.set(record.idPayout, failure);
        const returnReason = failure ? undefined : this.returnFor(record.account);
        if (returnReason) this.plannedPayoutReturns.set(record.idPayout, returnReason);
        if (record.status === 'PENDING') this.schedulePayout(record, Math.max(0, record.createdAt + payoutPendingMs - now));
        else this.timers.after(Math.max(0, record.createdAt + payoutPendingMs + payoutProcessingMs - now), () => this.finishPayout(record));
      } else if (record.status === 'SUCCESS' && record.processedAt !== undefined) {
        const returnReason = this.returnFor(record.account);
        if (returnReason) {
          this.timers.after(Math.max(0, record.processedAt + payoutReturnMs - now), () => {
            if (record.status === 'SUCCESS') this.applyReturn(record, returnReason);
          });
        }
      }
    }
    for (const record of this.store.payins.values()) {
      if (record.status !== 'PENDING') continue;
      this.timers.after(Math.max(0, record.expireAt - now), () => {
        if (record.status === 'PENDING') this.setPayinStatus(record, 'EXPIRED');
      });
    }
  }

  acceptPayin(input: NewPayin, operator: PaymentOperatorConfig): PayinRecord {
    const now = Date.now();
    const merchant = this.store.requireMerchant(input.merchantCode);
    const record: PayinRecord = {
      ...input,
      status: 'PENDING',
      createdAt: now,
      expireAt: now + this.config.timings.payinExpiryMs,
      reference: `SBX-${now.toString(36).toUpperCase()}-${randomInt(1e6).toString().padStart(6, '0')}`,
      payTo: {
        accountName: merchant.channelName,
        accountNumber: `VA${randomInt(1e9).toString().padStart(9, '0')}${randomInt(1e3).toString().padStart(3, '0')}`,
        bankCode: operator.bankCode,
        bankName: operator.bankName,
      },
      history: [{ status: 'PENDING', at: new Date(now).toISOString() }],
    };
    this.store.payins.set(record.idPayin, record);
    this.store.onChange();
    this.timers.after(this.config.timings.payinExpiryMs, () => {
      if (record.status === 'PENDING') this.setPayinStatus(record, 'EXPIRED');
    });
    return record;
  }

  /** The customer paid: SUCCESS credits the merchant, unless an outcome rule fails the customer's account. */
  markPayinPaid(idPayin: string): PayinRecord {
    const record = this.store.payins.get(idPayin);
    if (!record) throw new SandboxError('NOT_FOUND', `payin ${idPayin} does not exist`);
    if (record.status !== 'PENDING') {
      throw new SandboxError('INVALID_STATE', `payin ${idPayin} is ${record.status}; only PENDING payins can be paid`);
    }
    const failure = this.outcomeFor(record.customerAccount);
    if (failure) {
      record.failureReason = failure;
      this.setPayinStatus(record, 'FAILED');
    } else {
      this.store.balance(record.merchantCode, record.currencyCode).availableMinor += record.amountMinor;
      this.setPayinStatus(record, 'SUCCESS');
    }
    return record;
  }

  /** SUCCESS → RETURNED now (admin route / handle). Only a SUCCESS payout can be returned. */
  returnPayout(idPayout: string, reason?: string): PayoutRecord {
    const record = this.store.payouts.get(idPayout);
    if (!record) throw new SandboxError('NOT_FOUND', `payout ${idPayout} does not exist`);
    if (record.status !== 'SUCCESS') {
      throw new SandboxError(
        'INVALID_STATE',
        `payout ${idPayout} is ${record.status}; only SUCCESS payouts can be returned`,
      );
    }
    this.applyReturn(record, reason ?? this.config.manualReturnReason);
    return record;
  }

  private finishPayout(record: PayoutRecord): void {
    const balance = this.store.balance(record.merchantCode, record.currencyCode);
    const failure = this.plannedPayoutFailures.get(record.idPayout);
    this.plannedPayoutFailures.delete(record.idPayout);
    balance.reservedMinor -= record.reservedMinor;
    if (failure) {
      // Nothing leaves the account: the reservation goes back to available.
      balance.availableMinor += record.reservedMinor;
      record.failureReason = failure;
    }
    record.reservedMinor = 0;
    this.setPayoutStatus(record, failure ? 'FAILED' : 'SUCCESS');
    const returnReason = this.plannedPayoutReturns.get(record.idPayout);
    this.plannedPayoutReturns.delete(record.idPayout);
    if (!failure && returnReason) {
      this.timers.after(this.config.timings.payoutReturnMs, () => {
        // The admin route may have returned it already; a payout is returned once.
        if (record.status === 'SUCCESS') this.applyReturn(record, returnReason);
      });
    }
  }

  /** The beneficiary's bank sent the money back: the amount is available again, the fee stays charged. */
  private applyReturn(record: PayoutRecord, reason: string): void {
    this.store.balance(record.merchantCode, record.currencyCode).availableMinor += record.amountMinor;
    record.failureReason = reason;
    this.setPayoutStatus(record, 'RETURNED');
  }

  private setPayoutStatus(record: PayoutRecord, status: PayoutStatusValue): void {
    const now = Date.now();
    record.status = status;
    // processedAt follows the latest final status: a return moves it to the time of the return.
    if (status === 'SUCCESS' || status === 'FAILED' || status === 'RETURNED') record.processedAt = now;
    record.history.push({ status, at: new Date(now).toISOString() });
    this.store.onChange();
    if (record.callbackUrl) {
      this.callbacks.send(record.callbackUrl, 'PAYOUT_STATUS_CHANGED', record.idPayout, status);
    }
  }

  private setPayinStatus(record: PayinRecord, status: PayinStatusValue): void {
    const now = Date.now();
    record.status = status;
    record.processedAt = now;
    record.history.push({ status, at: new Date(now).toISOString() });
    this.store.onChange();
    if (record.callbackUrl) {
      this.callbacks.send(record.callbackUrl, 'PAYIN_STATUS_CHANGED', record.idPayin, status);
    }
  }

  private outcomeFor(account: Account): string | undefined {
    const rule = this.config.outcomeRules.find((r) => account.accountNumber.endsWith(r.accountNumberEndsWith));
    return rule?.failureReason;
  }

  private returnFor(account: Account): string | undefined {
    const rule = this.config.returnRules.find((r) => account.accountNumber.endsWith(r.accountNumberEndsWith));
    return rule?.returnReason;
  }
}
