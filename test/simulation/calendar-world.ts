// What the calendar's steps do (calendar-steps.ts), through the same IPC handlers the screens call: payouts:create
// and batches:submit with an execute-on time, schedules:list/move/cancel/confirmLate. The person writes each time
// as a wall time in a zone, worked out here with Intl (not the desk's luxon), and records what the desk confirmed:
// the instants each subject may leave from and the cancels (person.ts), which invariant 9 holds the gateway to.
import type { ExecuteOn, ScheduleView } from '../../contract/api';
import { ScheduleReleases } from '../../main/engine/schedule-releases';
import type { ScheduleRecord, ScheduledKind } from '../../main/schedules/schedule';
import { DST_NIGHTS, SCHEDULE_ZONES, SIM_LATE_WINDOW_MINUTES, SIM_PROFILE_ZONE, type CalendarStep } from './calendar-steps';
import type { ScheduledRecord } from './person';
import { describe, type World } from './world';

/** A race or a second desk waits at most this long for the schedule it meets. */
const RACE_HORIZON_MS = 10 * 60_000;

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall time of an instant in a zone, minutes precision ("2026-11-01T23:05"), by Intl. */
export function wallTime(at: number, zone: string): string {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formats.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  return `${p['year']}-${p['month']}-${p['day']}T${p['hour']}:${p['minute']}`;
}

/** The first whole minute at least `minutes` from now. */
const minutesAhead = (now: number, minutes: number): number => Math.ceil((now + minutes * 60_000) / 60_000) * 60_000;

export class CalendarActs {
  constructor(private readonly world: World) {}

  private get person() {
    return this.world.person;
  }

  private log(line: string): void {
    this.world.log.push(`${this.world.now} ${line}`);
  }

  async execute(step: CalendarStep): Promise<void> {
    switch (step.kind) {
      case 'schedule-single':
      case 'schedule-batch': {
        const zone = SCHEDULE_ZONES[step.zone];
        const at = minutesAhead(this.world.now, step.inMin);
        const executeOn: ExecuteOn = { local: wallTime(at, zone ?? SIM_PROFILE_ZONE), ...(zone ? { zone } : {}) };
        return step.kind === 'schedule-single' ? this.single(step.outcome, executeOn, at) : this.batch(step.outcomes, executeOn, at);
      }
      case 'schedule-dst': {
        const night = DST_NIGHTS[step.night]!;
        const executeOn: ExecuteOn = { local: night.local, zone: night.zone };
        return step.batch ? this.batch(['pays', 'pays'], executeOn, night.firstAt) : this.single('pays', executeOn, night.firstAt);
      }
      case 'desk-down':
        return this.world.down(step.ms, step.crash);
      case 'confirm-late':
        return this.confirmLate(step.pick);
      case 'move-schedule':
        return this.move(step.pick, step.inMin);
      case 'cancel-schedule':
        return this.cancel(step.pick);
      case 'race-release':
        return this.race(step.act, step.pick, step.inMin);
      case 'two-desks':
        return this.twoDesks(step.pick);
      case 'tamper-release':
        return this.tamperRelease(step.pick);
      case 'tamper-revert':
        return this.tamperRevert(step.pick);
    }
  }

  /** A scheduled payout. `at`: the instant the person means, or null for a time the clocks skip (to be refused). */
  private async single(outcome: 'pays' | 'fails' | 'returns', executeOn: ExecuteOn, at: number | null): Promise<void> {
    const intent = this.person.newIntent(outcome, this.world.amount());
    const id = this.person.newPayoutId('s');
    const asked = this.world.now;
    const answer = await this.world.call<{ state?: string }>('payouts:create', { ...this.world.payoutInput(intent, id), executeOn });
    this.log(`person scheduled single ${id} for intent ${intent.no} on ${executeOn.local} ${executeOn.zone ?? '(profile zone)'}: ${describe(answer)}`);
    if (answer === null) await this.world.afterStep();
    const { port } = await this.world.desk.journal();
    const stored = await port.schedule('payout', id);
    if (at === null) {
      if (answer?.ok || stored) this.person.calendarBroken.push(`the desk took payout ${id} for ${executeOn.local} in ${executeOn.zone}, a time the clocks skip`);
      else if (answer && answer.error.code !== 'BAD_EXECUTE_ON') this.person.calendarBroken.push(`payout ${id} for a skipped time was refused with ${answer.error.code}, not BAD_EXECUTE_ON`);
      return;
    }
    if (!stored) return;
    intent.confirmed = true;
    this.scheduled({ kind: 'payout', id, rowIds: [id], times: [{ from: asked, at }], cancelledAt: null }, stored, executeOn);
  }

  private async batch(outcomes: ('pays' | 'fails' | 'returns')[], executeOn: ExecuteOn, at: number | null): Promise<void> {
    const asked = this.world.now;
    const submitted = await this.world.batch(outcomes, executeOn);
    if (at === null) {
      if (submitted) this.person.calendarBroken.push(`the desk took batch ${submitted.id} for ${executeOn.local} in ${executeOn.zone}, a time the clocks skip`);
      return;
    }
    if (!submitted) return;
    const stored = await (await this.world.desk.journal()).port.schedule('batch', submitted.id);
    if (!stored) {
      this.person.calendarBroken.push(`batch ${submitted.id} was submitted for ${executeOn.local} but has no schedule in the journal`);
      return;
    }
    this.scheduled({ kind: 'batch', id: submitted.id, rowIds: submitted.rowIds, times: [{ from: asked, at }], cancelledAt: null }, stored, executeOn);
  }

  /** Records what the desk took, and checks it stored the instant the person meant by the wall time. */
  private scheduled(record: ScheduledRecord, stored: ScheduleRecord, executeOn: ExecuteOn): void {
    const meant = record.times[0]!.at;
    if (stored.at !== meant) {
      this.person.calendarBroken.push(`${record.kind} ${record.id} for ${executeOn.local} ${executeOn.zone ?? SIM_PROFILE_ZONE} is stored for ${new Date(stored.at).toISOString()}, not ${new Date(meant).toISOString()}`);
    }
    this.person.schedule(record);
  }

  /** The person's schedules not yet released or cancelled, by time (what the calendar screen lists). */
  private async waiting(states: readonly ('SCHEDULED' | 'LATE')[] = ['SCHEDULED', 'LATE'], until?: number): Promise<ScheduleRecord[]> {
    const { port } = await this.world.desk.journal();
    const found = await port.listSchedules({ states, ...(until !== undefined ? { to: until } : {}) });
    return found.filter((s) => this.person.scheduled.has(`${s.kind}:${s.id}`));
  }

  private async confirmLate(pick: number): Promise<void> {
    const late = await this.waiting(['LATE']);
    const s = late[Math.floor(pick * late.length)];
    if (!s) return;
    const answer = await this.world.call<ScheduleView>('schedules:confirmLate', { kind: s.kind, id: s.id });
    this.log(`person confirmed the late release of ${s.kind} ${s.id}: ${describe(answer)}`);
  }

  /** Moves a waiting schedule to `inMin` minutes from now, in its own zone. */
  private async move(pick: number, inMin: number, candidates?: ScheduleRecord[]): Promise<void> {
    const list = candidates ?? (await this.waiting());
    const s = list[Math.floor(pick * list.length)];
    if (!s) return;
    await this.moveOne(s, inMin).then((settle) => settle());
  }

  /** Asks for the move; the returned function records its outcome once the answer is in. */
  private async moveOne(s: ScheduleRecord, inMin: number, asked = this.world.now): Promise<() => Promise<void>> {
    const at = minutesAhead(this.world.now, inMin);
    const executeOn: ExecuteOn = { local: wallTime(at, s.zone), zone: s.zone };
    const answer = await this.world.call<ScheduleView>('schedules:move', { kind: s.kind, id: s.id, executeOn });
    return async () => {
      this.log(`person moved ${s.kind} ${s.id} to ${executeOn.local} ${s.zone}: ${describe(answer)}`);
      if (answer === null) await this.world.afterStep();
      const now = await (await this.world.desk.journal()).port.schedule(s.kind, s.id);
      const moved = answer?.ok === true || (answer === null && now?.local === executeOn.local && now.zone === executeOn.zone);
      if (!moved) return;
      const record = this.person.scheduled.get(`${s.kind}:${s.id}`)!;
      record.times.push({ from: asked, at });
      if (now && now.at !== at && now.state !== 'RELEASED') this.person.calendarBroken.push(`${s.kind} ${s.id} moved to ${executeOn.local} ${s.zone} is stored for ${new Date(now.at).toISOString()}, not ${new Date(at).toISOString()}`);
      // The oracle's manifest of it signs the new time from now on: approvals of the old one no longer count.
      const key = `${s.kind}:${s.id}`;
      const manifest = this.person.manifests.get(key);
      if (manifest) this.person.manifests.set(key, { ...manifest, version: 3, execution: { at: new Date(at).toISOString(), zone: s.zone, local: executeOn.local } });
    };
  }

  private async cancel(pick: number, candidates?: ScheduleRecord[]): Promise<void> {
    const list = candidates ?? (await this.waiting());
    const s = list[Math.floor(pick * list.length)];
    if (!s) return;
    await this.cancelOne(s).then((settle) => settle());
  }

  private async cancelOne(s: ScheduleRecord, asked = this.world.now): Promise<() => Promise<void>> {
    const answer = await this.world.call<ScheduleView>('schedules:cancel', { kind: s.kind, id: s.id, reason: 'not needed after all' });
    return async () => {
      this.log(`person cancelled ${s.kind} ${s.id}: ${describe(answer)}`);
      if (answer === null) await this.world.afterStep();
      const now = await (await this.world.desk.journal()).port.schedule(s.kind, s.id);
      if (answer?.ok === true || (answer === null && now?.state === 'CANCELLED')) this.cancelled(s.kind, s.id, asked);
    };
  }

  private cancelled(kind: ScheduledKind, id: string, at: number): void {
    const record = this.person.scheduled.get(`${kind}:${id}`);
    if (record && record.cancelledAt === null) record.cancelledAt = at;
  }

  /** A held payout discarded by the person (payouts:discard): a scheduled one is cancelled with it. */
  async discarded(payoutId: string, at: number): Promise<void> {
    if (!this.person.scheduled.has(`payout:${payoutId}`)) return;
    // Only one still waiting for its time is cancelled so (one the gate held after its release is discarded only).
    if ((await (await this.world.desk.journal()).port.schedule('payout', payoutId))?.state === 'CANCELLED') this.cancelled('payout', payoutId, at);
  }

  /** A waiting schedule due within the horizon, and the clock brought to its time. */
  private async reachDue(pick: number): Promise<ScheduleRecord | null> {
    const due = await this.waiting(['SCHEDULED'], this.world.now + RACE_HORIZON_MS);
    const s = due[Math.floor(pick * due.length)];
    if (!s) return null;
    await this.world.advance(Math.max(0, s.at - this.world.now));
    if (!this.world.alive) return null;
    return s;
  }

  /**
   * At the schedule's time, the person moves or cancels it while the desk's release loop looks (engine.releaseDue):
   * one of the two wins, never both. Which is asked first alternates with `inMin`.
   */
  private async race(act: 'move' | 'cancel', pick: number, inMin: number): Promise<void> {
    const s = await this.reachDue(pick);
    if (!s) return;
    const engine = await this.world.desk.engine();
    const asked = this.world.now;
    const releaseFirst = inMin % 2 === 1;
    const release = releaseFirst ? engine.releaseDue() : null;
    const person = act === 'move' ? this.moveOne(s, inMin, asked) : this.cancelOne(s, asked);
    // Asked second, the release starts some microtask turns into the person's request (from the pick's lower
    // digits): before, during or after the move's or cancel's own writes.
    const turns = Math.floor(pick * 10_000) % 48;
    const later = releaseFirst ? null : (async () => {
      for (let i = 0; i < turns; i++) await Promise.resolve();
      await engine.releaseDue();
    })();
    const settled = await this.world.during(Promise.all([person, release ?? later]));
    this.log(`the release of ${s.kind} ${s.id} raced a ${act} (${releaseFirst ? 'release' : act} asked first)`);
    if (settled.settled) await settled.value[0]();
    else await this.world.afterStep();
  }

  /**
   * Two sender desks at one release moment: this desk's release loop and a second one (the production
   * ScheduleReleases, actor "second-desk") over the same journal look at once. On SQLite a journal has one engine,
   * so what the second desk releases is sent by this desk's engine, as the second desk's would send it.
   */
  private async twoDesks(pick: number): Promise<void> {
    const s = await this.reachDue(pick);
    if (!s) return;
    const engine = await this.world.desk.engine();
    const { port } = await this.world.desk.journal();
    const sendReleased = (engine as unknown as { sendReleased(r: ScheduleRecord): void }).sendReleased.bind(engine);
    const second = new ScheduleReleases({
      journal: port, now: () => Date.now(), lateWindowMs: SIM_LATE_WINDOW_MINUTES * 60_000, actor: 'second-desk',
      released: sendReleased, late: () => undefined, onError: (e) => this.log(`second desk: ${e.message}`),
    });
    second.start();
    // Which desk looks first alternates with the pick (SQLite answers in turn: the first to ask wins).
    const secondFirst = pick < 0.5;
    const first = secondFirst ? second.tick() : engine.releaseDue();
    await this.world.during(Promise.all([first, secondFirst ? engine.releaseDue() : second.tick()]));
    await this.world.during(second.stop());
    const after = await port.schedule(s.kind, s.id);
    this.log(`two desks looked at ${s.kind} ${s.id} at its time: ${after?.state ?? 'gone'}${after?.releasedBy ? ` by ${after.releasedBy}` : ''}`);
  }

  /**
   * Someone with the journal file marks a waiting schedule released before its time, its payout queued or its batch
   * running, and the desk starts again over it: the approval gate must still hold it to its time.
   */
  private async tamperRelease(pick: number): Promise<void> {
    if (!this.person.dualControl) return;
    const waiting = (await this.waiting(['SCHEDULED'])).filter((s) => s.at > this.world.now);
    const s = waiting[Math.floor(pick * waiting.length)];
    if (!s) return;
    await this.world.recordSubjects();
    const { tables } = await this.world.desk.journal();
    await tables.rows.releaseEarly(s.kind, s.id, this.world.now);
    this.log(`someone with the journal released ${s.kind} ${s.id} early (due ${new Date(s.at).toISOString()})`);
    await this.world.crash();
  }

  /** Someone with the journal file writes a moved schedule's first time back (its old signature and approvals). */
  private async tamperRevert(pick: number): Promise<void> {
    if (!this.person.dualControl) return;
    const moved = (await this.waiting(['SCHEDULED'])).filter((s) => (this.person.scheduled.get(`${s.kind}:${s.id}`)?.times.length ?? 0) > 1);
    const s = moved[Math.floor(pick * moved.length)];
    if (!s) return;
    await this.world.recordSubjects();
    const first = this.person.scheduled.get(`${s.kind}:${s.id}`)!.times[0]!;
    const { tables } = await this.world.desk.journal();
    await tables.rows.setScheduleTime(s.kind, s.id, { at: first.at, zone: s.zone, local: wallTime(first.at, s.zone) });
    this.log(`someone with the journal put ${s.kind} ${s.id} back to its first time ${new Date(first.at).toISOString()}`);
  }
}
