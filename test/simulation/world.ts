// Carries out the steps of a history: the person acts through the same IPC handlers the renderer
// calls (schemas, services, error mapping), the gateway model misbehaves when told, and the desk
// process crashes, quits and starts again over the same records (its journal file or its team database).
// Time is the fake clock's: the desk's timers, back-offs, polls and the model's latencies all run on it, and
// passes as the adapter lets it (adapters.ts), so a run depends on its steps only.
import type { Clock } from '@sinonjs/fake-timers';
import { PAYOUT_CSV_FIELDS } from '../../main/csv/headers';
import { createIpcHandlers } from '../../main/ipc/handlers';
import type { MemoryKeyStore } from '../../main/keys/key-store';
import type { BatchResultRow, IpcHandlerMap, Result } from '../../contract/api';
import type { GatewayModel, GatewayStatus, StoredPayout } from './gateway-model';
import type { Intent, Person } from './person';
import type { Subject } from '../../main/approvals/manifest';
import type { SimStorage } from './adapters';
import { dualControlService } from '../../main/desk/dual-control';
import { Adversary } from './adversary';
import { journalledManifest, PREPARER, SIM_PEOPLE, SIM_POLICIES, sessionOf, trustedControl } from './dual-control';
import { payoutsOf } from './invariants';
import { openSimDesk, SIM_PROFILE, type SimDesk } from './sim-desk';
import type { Outcome, Step } from './steps';
import type { ExecuteOn } from '../../contract/api';
import { CalendarActs } from './calendar-world';
import { RecurringActs } from './recurring-world';
import { isRecurringStep } from './recurring-steps';

/** Longest a person waits for one answer before giving up on it (the desk may have crashed meanwhile). */
const PATIENCE_MS = 60_000;
/** How often a waiting person looks whether the answer came. */
const TICK_MS = 250;

type Settled<T> = { settled: true; value: T } | { settled: false };

const FINAL: ReadonlySet<GatewayStatus> = new Set(['SUCCESS', 'FAILED', 'RETURNED']);


export class World {
  desk: SimDesk;
  private handlers: IpcHandlerMap;
  private generation = 1;
  private batchFiles = 0;
  readonly log: string[] = [];

  private readonly adversary: Adversary;
  private readonly calendar = new CalendarActs(this);
  private readonly recurring = new RecurringActs(this);

  constructor(
    private readonly clock: Clock,
    private readonly storage: SimStorage,
    private readonly home: string,
    private readonly keyStore: MemoryKeyStore,
    readonly model: GatewayModel,
    readonly person: Person,
  ) {
    this.desk = openSimDesk(home, keyStore, model, this.generation, storage);
    this.handlers = createIpcHandlers(this.desk.services);
    this.unlockPreparer();
    this.adversary = new Adversary({
      person,
      now: () => this.now,
      journal: () => this.desk.journal(),
      call: (channel, args) => this.call(channel as keyof IpcHandlerMap, args),
      lockDesk: () => this.desk.runtime.setSession(SIM_PROFILE, null),
      unlockDesk: () => this.unlockPreparer(),
      log: (line) => this.log.push(line),
    });
  }

  /** With dual control on, Alice (preparer, sender, admin) unlocks at each start of the desk. */
  private unlockPreparer(): void {
    if (this.person.dualControl) this.desk.runtime.setSession(SIM_PROFILE, sessionOf(PREPARER, this.now));
  }

  get now(): number {
    return this.clock.now;
  }

  get alive(): boolean {
    return !this.desk.dead;
  }

  /** Lets `ms` of simulated time pass. */
  async advance(ms: number): Promise<void> {
    await this.storage.tick(ms);
  }

  /** Waits for `work` while time passes, as a person would, up to PATIENCE_MS. */
  async during<T>(work: Promise<T>, patienceMs = PATIENCE_MS): Promise<Settled<T>> {
    let outcome: Settled<T> = { settled: false };
    work.then(
      (value) => (outcome = { settled: true, value }),
      () => undefined,
    );
    await this.settleUntil(() => outcome.settled, patienceMs);
    return outcome;
  }

  /** Lets time pass, one timer at a time, until `done` or `patienceMs` passed (or the desk died). */
  private async settleUntil(done: () => boolean, patienceMs: number, evenIfDead = false): Promise<void> {
    const until = this.clock.now + patienceMs;
    await this.storage.tick(0);
    while (!done() && (evenIfDead || this.alive) && this.clock.now < until) await this.storage.tick(Math.min(TICK_MS, until - this.clock.now));
  }

  /** An answer from a desk process that crashed meanwhile never reaches the person (the window went with it). */
  async call<T>(channel: keyof IpcHandlerMap, args: unknown): Promise<Result<T> | null> {
    const desk = this.desk;
    const handler = this.handlers[channel] as (a: unknown) => Promise<Result<T>>;
    const answer = await this.during(handler(args));
    return answer.settled && !desk.dead ? answer.value : null;
  }

  /** The desk process starts (again) over the same data folder, and starts its engine as the app does. */
  async start(): Promise<void> {
    this.generation++;
    await this.storage.beforeStart();
    this.desk = openSimDesk(this.home, this.keyStore, this.model, this.generation, this.storage);
    this.handlers = createIpcHandlers(this.desk.services);
    this.unlockPreparer();
    await this.during(this.desk.engine());
    await this.recurring.atStart();
  }

  /** The desk stops (crashes, or the person quits it) and starts again `ms` later: the clock passes meanwhile. */
  async down(ms: number, crash: boolean): Promise<void> {
    this.log.push(`${this.now} desk ${crash ? 'crashed' : 'quit'}; down for ${Math.round(ms / 60_000)} min`);
    if (crash) this.desk.crash();
    else {
      let closed = false;
      void this.desk.quit().finally(() => (closed = true));
      await this.settleUntil(() => closed, PATIENCE_MS, true);
    }
    await this.advance(ms);
    await this.start();
  }

  async crash(): Promise<void> {
    this.log.push(`${this.now} desk crashed`);
    this.desk.crash();
    await this.start();
  }

  async execute(step: Step): Promise<void> {
    switch (step.kind) {
      case 'single':
        return this.single(this.person.newIntent(step.outcome, this.amount()));
      case 'batch':
        await this.batch(step.outcomes);
        return;
      case 'pause':
      case 'resume':
      case 'cancel':
        return this.control(step.kind, step.pick);
      case 'retry':
        return this.retry(step.pick);
      case 'release':
      case 'discard':
        return this.decideHeld(step.kind, step.pick);
      case 'wrong-key':
        this.model.keyRefused = true;
        return;
      case 'fix-key':
        this.model.keyRefused = false;
        return;
      case 'crash':
        return this.crash();
      case 'crash-on-next-create':
        this.model.onCreateArrived = () => {
          this.model.onCreateArrived = null;
          this.log.push(`${this.now} desk crashed as a create reached the gateway`);
          this.desk.crash();
        };
        return;
      case 'quit': {
        // Quitting waits for the requests on the wire; time passes meanwhile.
        let closed = false;
        void this.desk.quit().finally(() => (closed = true));
        await this.settleUntil(() => closed, PATIENCE_MS, true);
        return this.start();
      }
      case 'reenter':
        return this.reenter();
      case 'create-faults':
        this.model.createFaults.push(...step.faults);
        return;
      case 'rate-burst':
        this.model.rateBurstUntil = this.now + step.ms;
        return;
      case 'hide':
      case 'forget':
      case 'return':
        return this.gatewayChange(step.kind, step.pick, step.ms);
      case 'wait':
        return this.advance(step.ms);
      case 'approve':
      case 'reject':
        return this.decide(step.kind, step.pick, step.who);
      case 'revoke':
        return this.revoke(step.who);
      case 'edit-row':
        return this.editRow(step.pick);
      case 'policy':
        return this.changePolicy();
      case 'tamper':
        if (!this.person.dualControl) return;
        // What is journalled now is what the person asked for; from here on the rows may lie.
        await this.recordSubjects();
        return this.adversary.tamper(step.act, step.pick);
      case 'desk-user':
        if (!this.person.dualControl) return;
        return this.adversary.deskUser(step.act);
      default:
        return isRecurringStep(step) ? this.recurring.execute(step) : this.calendar.execute(step);
    }
  }

  /** Each payout's and batch's manifest as journalled, for the oracle, before an adversary can touch the rows. */
  async recordSubjects(): Promise<void> {
    const { port } = await this.desk.journal();
    for (const p of await payoutsOf(port)) {
      const subject = p.batchId ? { kind: 'batch' as const, id: p.batchId } : { kind: 'payout' as const, id: p.id };
      const key = `${subject.kind}:${subject.id}`;
      if (this.person.manifests.has(key)) continue;
      const manifest = await journalledManifest(port, subject);
      if (manifest) this.person.manifests.set(key, manifest);
    }
  }

  /** The control records as the person's own step just made them: what the oracle believes from now on. */
  private async trustChain(): Promise<void> {
    const state = await this.desk.runtime.controlFor(SIM_PROFILE);
    if (!state.problem) this.person.chain = [...state.records];
  }

  private dualControl() {
    return dualControlService(this.desk.runtime);
  }

  /** Payouts and batches that may still leave for the first time: what an approver is asked about. */
  private async pendingSubjects(): Promise<Subject[]> {
    const { port } = await this.desk.journal();
    const subjects: Subject[] = [];
    for (const p of await payoutsOf(port)) {
      if (p.batchId === null && (p.state === 'HELD' || p.state === 'QUEUED') && p.attempts === 0) subjects.push({ kind: 'payout', id: p.id });
    }
    for (const id of this.person.batches) {
      if ((await port.unsentPayments('payout', id)).some((p) => p.attempts === 0)) subjects.push({ kind: 'batch', id });
    }
    return subjects;
  }

  /**
   * A random person of the desk approves or rejects a pending payout or batch. The preparer and a revoked
   * person must be refused; after an approval that satisfies the policy, the person releases or resumes it.
   */
  private async decide(decision: 'approve' | 'reject', pick: number, who: number): Promise<void> {
    if (!this.person.dualControl) return;
    const subjects = await this.pendingSubjects();
    const subject = subjects[Math.floor(pick * subjects.length)];
    if (!subject) return;
    const signer = SIM_PEOPLE[Math.floor(who * SIM_PEOPLE.length)]!;
    const revoked = trustedControl(this.person.chain).people.get(signer.id)?.revokedAt != null;
    let outcome: string;
    let verdictOk = false;
    try {
      const { view, approval } = await this.dualControl().decide(SIM_PROFILE, subject, decision, decision === 'reject' ? 'amount looks wrong' : null, sessionOf(signer.id, this.now));
      this.person.approvals.push(approval);
      verdictOk = view.verdict.ok && view.preparation === null;
      outcome = `ok (${view.verdict.message})`;
      if (signer.id === PREPARER) this.person.refusalsBroken.push(`${signer.name} prepared ${subject.kind} ${subject.id} and the desk took her ${decision}`);
      if (revoked) this.person.refusalsBroken.push(`${signer.name} was revoked and the desk took their ${decision} of ${subject.kind} ${subject.id}`);
    } catch (error) {
      outcome = error instanceof Error ? `${(error as { code?: string }).code ?? 'error'}: ${error.message}` : String(error);
    }
    this.log.push(`${this.now} ${signer.name} ${decision === 'approve' ? 'approved' : 'rejected'} ${subject.kind} ${subject.id}: ${outcome}`);
    if (!verdictOk || decision !== 'approve') return;
    const { port } = await this.desk.journal();
    if (subject.kind === 'payout' && (await port.getPayment('payout', subject.id))?.state === 'HELD') {
      this.person.lift('hold', subject.id, this.now);
      const answer = await this.call('payouts:release', { idPayout: subject.id });
      this.log.push(`${this.now} person released approved ${subject.id}: ${describe(answer)}`);
      if (answer && !answer.ok && answer.error.code === 'PAYOUT_HELD') this.person.acknowledge('hold', subject.id, this.now);
    } else if (subject.kind === 'batch' && (await port.getBatch(subject.id))?.state === 'PAUSED') {
      const answer = await this.call('batches:resume', { batchId: subject.id });
      this.log.push(`${this.now} person resumed approved batch ${subject.id}: ${describe(answer)}`);
      if (answer?.ok) this.person.lift('pause', subject.id, this.now);
    }
  }

  /** Alice (admin) revokes one of the other people. */
  private async revoke(who: number): Promise<void> {
    if (!this.person.dualControl) return;
    const others = SIM_PEOPLE.filter((p) => p.id !== PREPARER);
    const target = others[Math.floor(who * others.length)]!;
    try {
      const { approvalsVoided } = await this.dualControl().revokePerson(SIM_PROFILE, target.id, 'left the company', sessionOf(PREPARER, this.now));
      await this.trustChain();
      this.log.push(`${this.now} Alice revoked ${target.name} (${approvalsVoided} approval(s) voided)`);
    } catch (error) {
      this.log.push(`${this.now} Alice could not revoke ${target.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Someone edits a row not yet sent, straight in the journal (the e-mail: the money stays what was asked). */
  private async editRow(pick: number): Promise<void> {
    if (!this.person.dualControl) return;
    await this.recordSubjects();
    const journal = await this.desk.journal();
    const unsent = (await payoutsOf(journal.port)).filter((p) => (p.state === 'HELD' || p.state === 'QUEUED') && p.attempts === 0);
    const p = unsent[Math.floor(pick * unsent.length)];
    if (!p) return;
    await journal.tables.rows.setPayment(p.id, { emailAddress: `edited-${this.now}@example.com` });
    this.log.push(`${this.now} someone edited the e-mail of unsent ${p.id} in the journal`);
  }

  /** Alice switches to the other policy: every approval given under the old version is void. */
  private async changePolicy(): Promise<void> {
    if (!this.person.dualControl) return;
    const current = await this.dualControl().policy(SIM_PROFILE);
    const rules = SIM_POLICIES[current.policy.version % SIM_POLICIES.length]!;
    try {
      const { policy } = await this.dualControl().setPolicy(SIM_PROFILE, rules, sessionOf(PREPARER, this.now));
      await this.trustChain();
      this.log.push(`${this.now} Alice set policy version ${policy.version}`);
    } catch (error) {
      this.log.push(`${this.now} Alice could not change the policy: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A crash armed for a create that never came, or a desk that crashed during a step, is started again. */
  async afterStep(): Promise<void> {
    if (!this.alive) await this.start();
  }

  amount(): number {
    return 100 + ((this.person.intents.length * 7919) % 100_000);
  }

  payoutInput(intent: Intent, idPayout: string) {
    return {
      idPayout,
      amount: `${Math.trunc(intent.amountMinor / 100)}.${String(intent.amountMinor % 100).padStart(2, '0')}`,
      currencyCode: 'EUR',
      accountName: intent.accountName,
      accountNumber: intent.accountNumber,
      paymentOperatorCode: 'EU_SEPA',
      paymentMethodCode: 'BANK_TRANSFER',
      emailAddress: `payee${intent.no}@example.com`,
      reference: `intent ${intent.no}`,
    };
  }

  private async single(intent: Intent): Promise<void> {
    const id = this.person.newPayoutId('p');
    const answer = await this.call<{ state?: string }>('payouts:create', this.payoutInput(intent, id));
    this.log.push(`${this.now} person sent single ${id} for intent ${intent.no}: ${describe(answer)}`);
    intent.confirmed = true;
    if (answer === null) {
      // No answer (the desk went down): the person looks for it after the restart.
      await this.afterStep();
      intent.reenter = !(await (await this.desk.journal()).port.getPayment('payout', id));
    } else if (answer.ok) {
      if (answer.data.state === 'HELD') this.person.acknowledge('hold', id, this.now);
    } else if (answer.error.code === 'PAYOUT_HELD') {
      this.person.acknowledge('hold', id, this.now);
    } else if (answer.error.code === 'POSSIBLE_DUPLICATE') {
      // The desk names an earlier payout of this intent that paid or may still pay: the person does not send it again.
      this.log.push(`${this.now} person keeps the earlier payout of intent ${intent.no}: ${answer.error.message}`);
    } else {
      // The desk did not say the payout is kept: a person enters it again once things look fixed.
      intent.reenter = true;
    }
  }

  private async reenter(): Promise<void> {
    if (this.model.keyRefused) return;
    for (const intent of this.person.intents.filter((i) => i.reenter)) {
      intent.reenter = false;
      await this.single(intent);
    }
  }

  /** `executeOn`: submitted to be released then (the calendar); the batch's id and row ids when the desk took it. */
  async batch(outcomes: Outcome[], executeOn?: ExecuteOn): Promise<{ id: string; rowIds: string[] } | null> {
    const intents = outcomes.map((o) => this.person.newIntent(o, this.amount()));
    this.batchFiles++;
    const lines = [PAYOUT_CSV_FIELDS.join(',')];
    const rowIds: string[] = [];
    for (const intent of intents) {
      const input = this.payoutInput(intent, this.person.newPayoutId('b'));
      rowIds.push(input.idPayout);
      lines.push(PAYOUT_CSV_FIELDS.map((f) => (f in input ? String(input[f as keyof typeof input]) : '')).join(','));
    }
    const bytes = new TextEncoder().encode(`${lines.join('\r\n')}\r\n`);
    const validation = await this.call<{ validationId: string; warnings: { rowNumber: number }[]; errors: unknown[] }>('batches:validateFile', {
      source: { kind: 'bytes', fileName: `sim-${this.batchFiles}.csv`, bytes },
    });
    if (!validation?.ok || validation.data.errors.length > 0) {
      this.log.push(`${this.now} person's file ${this.batchFiles} did not validate: ${describe(validation)}`);
      return null;
    }
    const submitted = await this.call<{ id: string }>('batches:submit', {
      validationId: validation.data.validationId,
      confirmedWarningRows: [...new Set(validation.data.warnings.map((w) => w.rowNumber))],
      ...(executeOn ? { executeOn } : {}),
    });
    this.log.push(`${this.now} person submitted file ${this.batchFiles} (${intents.length} rows)${executeOn ? ` for ${executeOn.local} ${executeOn.zone ?? '(profile zone)'}` : ''}: ${describe(submitted)}`);
    if (submitted?.ok) {
      this.person.batches.push(submitted.data.id);
      for (const intent of intents) intent.confirmed = true;
      return { id: submitted.data.id, rowIds };
    } else if (submitted === null) {
      await this.afterStep();
      const payouts = await payoutsOf((await this.desk.journal()).port);
      const known = new Set(payouts.map((p) => p.accountNumber));
      for (const intent of intents) intent.confirmed = known.has(intent.accountNumber);
      // A scheduled batch kept although the answer was lost: the person finds it in the calendar.
      const batchId = executeOn ? payouts.find((p) => p.id === rowIds[0])?.batchId : undefined;
      if (batchId) {
        this.person.batches.push(batchId);
        return { id: batchId, rowIds };
      }
    }
    return null;
  }

  private async batchesIn(states: string[]): Promise<string[]> {
    const { port } = await this.desk.journal();
    const found: string[] = [];
    for (const id of this.person.batches) if (states.includes((await port.getBatch(id))?.state ?? '')) found.push(id);
    return found;
  }

  private async control(verb: 'pause' | 'resume' | 'cancel', pick: number): Promise<void> {
    const candidates = await this.batchesIn(verb === 'pause' ? ['RUNNING'] : verb === 'resume' ? ['PAUSED'] : ['RUNNING', 'PAUSED']);
    const batchId = candidates[Math.floor(pick * candidates.length)];
    if (!batchId) return;
    const answer = await this.call(`batches:${verb}`, { batchId });
    this.log.push(`${this.now} person ${verb}d batch ${batchId}: ${describe(answer)}`);
    if (!answer?.ok) return;
    if (verb === 'resume') this.person.lift('pause', batchId, this.now);
    else this.person.acknowledge(verb, batchId, this.now);
  }

  private async retry(pick: number): Promise<void> {
    const batchId = this.person.batches[Math.floor(pick * this.person.batches.length)];
    if (!batchId) return;
    // The rows the results screen offers for "retry failed rows": the ones main marks retryable.
    const results = await this.call<BatchResultRow[]>('batches:results', { batchId });
    if (!results?.ok) return;
    const rows = results.data.filter((r) => r.retryable);
    if (rows.length === 0) return;
    const answer = await this.call<{ id: string }>('batches:retryFailed', { batchId, idPayouts: rows.map((r) => r.idPayout) });
    this.log.push(`${this.now} person retried ${rows.length} failed row(s) of ${batchId} (${rows.map((r) => r.idPayout).join(', ')}): ${describe(answer)}`);
    if (answer?.ok) this.person.batches.push(answer.data.id);
  }

  private async decideHeld(verb: 'release' | 'discard', pick: number): Promise<void> {
    const channel = `payouts:${verb}` as keyof IpcHandlerMap;
    if (!(channel in this.handlers)) return;
    const held = (await payoutsOf((await this.desk.journal()).port)).filter((p) => p.state === 'HELD');
    const p = held[Math.floor(pick * held.length)];
    if (!p) return;
    // Releasing is the person's word that it may leave: from the click on, until the desk holds it again.
    if (verb === 'release') this.person.lift('hold', p.id, this.now);
    const asked = this.now;
    const answer = await this.call(channel, { idPayout: p.id });
    this.log.push(`${this.now} person ${verb}d held ${p.id}: ${describe(answer)}`);
    // Discarding a payout still waiting for its time cancels its schedule.
    if (verb === 'discard' && answer?.ok) await this.calendar.discarded(p.id, asked);
    if (answer && !answer.ok && answer.error.code === 'PAYOUT_HELD') this.person.acknowledge('hold', p.id, this.now);
  }

  private gatewayChange(kind: 'hide' | 'forget' | 'return', pick: number, ms: number): void {
    const now = this.now;
    // The gateway loses track of payouts still in its hands (a final one keeps the status it had).
    const eligible = (p: StoredPayout) =>
      kind === 'return' ? this.model.statusOf(p, now) === 'SUCCESS' : kind === 'forget' ? !p.forgotten && !FINAL.has(this.model.statusOf(p, now)) : !p.forgotten;
    const stored = [...this.model.payouts.values()].filter(eligible);
    const p = stored[Math.floor(pick * stored.length)];
    if (!p) return;
    if (kind === 'return') this.model.returnPayout(p.id, now);
    else if (kind === 'forget') p.forgotten = true;
    else p.hiddenUntil = now + ms;
    this.log.push(`${now} gateway ${kind === 'hide' ? `hides ${p.id} for ${ms} ms` : kind === 'forget' ? `forgets ${p.id}` : `returns ${p.id}`}`);
  }

  /** Faults end, the person fixes the key and re-enters what they believe was not kept; then time passes. */
  async quiesce(): Promise<void> {
    // The adversary puts back what it took: the desk carries on from there (it is not stopped for good).
    if (this.person.dualControl) await this.adversary.restore();
    this.model.createFaults.length = 0;
    this.model.rateBurstUntil = 0;
    this.model.onCreateArrived = null;
    this.model.keyRefused = false;
    for (const p of this.model.payouts.values()) p.hiddenUntil = 0;
    await this.afterStep();
    await this.reenter();
    await this.advance(45 * 60_000);
  }
}

export function describe(answer: Result<unknown> | null): string {
  if (answer === null) return 'no answer';
  if (answer.ok) return 'ok';
  return `${answer.error.code}: ${answer.error.message}`;
}
