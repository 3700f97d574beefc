// What the recurring steps do (recurring-steps.ts), through the IPC handlers the screens call (payees:add,
// recurring:add/list/run/skip/pause/resume), and invariant 10 over what they made: per template and date, at most one
// payout in the journal and one payout id created at the gateway, nothing for a skipped date, and each occurrence's
// payout scheduled at, and leaving no earlier than, its date's release time, worked out here with Intl (not the
// desk's luxon). An occurrence is known by its reference ("T1 2026-11-06"), not by the id the desk derives, so a
// desk that named two payouts for one date differently is still seen.
import type { PayeeChangeOutcome, RecurringRunResult, RecurringView } from '../../contract/api';
import { runRecurring } from '../../main/desk/recurring';
import { SIM_PROFILE, type SimJournal } from './adapters';
import { SIM_PROFILE_ZONE } from './calendar-steps';
import { wallTime } from './calendar-world';
import type { GatewayModel } from './gateway-model';
import { payoutsOf, type Violation } from './invariants';
import type { Person } from './person';
import type { RecurringStep } from './recurring-steps';
import { describe, type World } from './world';

/** Every occurrence releases at this wall time in the profile's zone. */
const TIME_OF_DAY = '08:00';

interface TemplateRecord {
  id: string;
  /** "T1": the reference of each occurrence is "T1 yyyy-MM-dd". */
  tag: string;
  amountMinor: number;
}

/** What the person asked for and the desk confirmed, for invariant 10. */
export interface RecurringRecord {
  payeeId: string | null;
  templates: TemplateRecord[];
  /** "templateId date" of each date the desk confirmed skipped. */
  skipped: Set<string>;
  /** By template: from its pause (acknowledged) to its resume (null: still paused). */
  paused: Map<string, { from: number; to: number | null }[]>;
}

const records = new WeakMap<Person, RecurringRecord>();
export function recurringRecordOf(person: Person): RecurringRecord {
  let r = records.get(person);
  if (!r) records.set(person, (r = { payeeId: null, templates: [], skipped: new Set(), paused: new Map() }));
  return r;
}

/** The first instant whose wall time in `zone` is `date`T`time` (a time passed twice: the first; none: null). */
export function releaseInstant(date: string, time: string, zone: string): number | null {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, hh, mm);
  // Offsets from +14 h down to -14 h: the earliest instant first.
  for (let off = 14 * 60; off >= -14 * 60; off -= 15) {
    const at = wall - off * 60_000;
    if (wallTime(at, zone) === `${date}T${time}`) return at;
  }
  return null;
}

export class RecurringActs {
  /** Set while a step makes the look at the desk's next start itself (two at once, or one the desk crashes in). */
  private ownStartLook = false;

  constructor(private readonly world: World) {}

  /**
   * The app looks for due occurrences as the desk starts (and every few minutes while it runs: not simulated): the
   * simulated desk looks at each start once a template exists (before, nothing changes for any drawn seed).
   */
  async atStart(): Promise<void> {
    if (!this.ownStartLook) await this.run();
  }

  private get record(): RecurringRecord {
    return recurringRecordOf(this.world.person);
  }

  private log(line: string): void {
    this.world.log.push(`${this.world.now} ${line}`);
  }

  async execute(step: RecurringStep): Promise<void> {
    switch (step.kind) {
      case 'recurring-add':
        return this.add(step.rule, step.amount, step.leadDays);
      case 'recurring-run':
        return this.run();
      case 'recurring-skip':
        return this.skip();
      case 'recurring-pause':
      case 'recurring-resume':
        return this.pauseOrResume(step.kind === 'recurring-pause' ? 'pause' : 'resume');
      case 'recurring-pass':
        return this.pass(step.beforeMin, step.crash, step.looks ?? 1);
      case 'recurring-crash-mid-run':
        return this.crashMidRun(step.beforeMin, step.turns, step.downMs);
      case 'recurring-forget':
        return this.forget();
    }
  }

  /** The payee of the book every template pays (added once). */
  private async payee(): Promise<string | null> {
    if (this.record.payeeId) return this.record.payeeId;
    const answer = await this.world.call<PayeeChangeOutcome>('payees:add', { name: 'Landlord Ltd', accountNumber: 'REC-1-1234', operatorCode: 'EU_SEPA', emailAddress: 'rent@example.com' });
    this.log(`person added payee Landlord Ltd: ${describe(answer)}`);
    if (answer?.ok) this.record.payeeId = answer.data.payee.id;
    return this.record.payeeId;
  }

  private async add(rule: string, amount: string, leadDays: number): Promise<void> {
    const payeeId = await this.payee();
    if (!payeeId) return;
    const tag = `T${this.record.templates.length + 1}`;
    const answer = await this.world.call<RecurringView>('recurring:add', {
      payeeId, amount, currencyCode: 'EUR', reference: `${tag} {yyyy-MM-dd}`, rule, timeOfDay: TIME_OF_DAY, zone: SIM_PROFILE_ZONE, leadDays,
    });
    this.log(`person added recurring ${tag} ${rule} ${amount} EUR (${leadDays} days ahead): ${describe(answer)}${answer?.ok ? ` as ${answer.data.id}, next ${answer.data.next?.date ?? 'none'}` : ''}`);
    if (!answer?.ok) return;
    // Exact: "12.50" → 1250.
    const [units, cents = ''] = amount.split('.');
    this.record.templates.push({ id: answer.data.id, tag, amountMinor: Number(units) * 100 + Number(cents.padEnd(2, '0')) });
  }

  private async run(): Promise<void> {
    if (this.record.templates.length === 0) return;
    const answer = await this.world.call<RecurringRunResult>('recurring:run', {});
    const made = answer?.ok ? ` (made ${answer.data.created.map((c) => c.date).join(' ') || 'none'}; missed ${answer.data.missed.length}; failed ${answer.data.failed.length})` : '';
    this.log(`the generator ran: ${describe(answer)}${made}`);
  }

  private newest(): TemplateRecord | undefined {
    return this.record.templates[this.record.templates.length - 1];
  }

  private async view(t: TemplateRecord): Promise<RecurringView | undefined> {
    const answer = await this.world.call<{ items: RecurringView[] }>('recurring:list', {});
    return answer?.ok ? answer.data.items.find((v) => v.id === t.id) : undefined;
  }

  private async skip(): Promise<void> {
    const t = this.newest();
    if (!t) return;
    const date = (await this.view(t))?.next?.date;
    if (!date) return;
    const answer = await this.world.call<RecurringView>('recurring:skip', { id: t.id, date });
    this.log(`person skipped ${date} of ${t.tag}: ${describe(answer)}`);
    if (answer?.ok) this.record.skipped.add(`${t.id} ${date}`);
  }

  private async pauseOrResume(verb: 'pause' | 'resume'): Promise<void> {
    const t = this.newest();
    if (!t) return;
    const asked = this.world.now;
    const answer = await this.world.call<RecurringView>(`recurring:${verb}`, { id: t.id });
    this.log(`person ${verb === 'pause' ? 'paused' : 'resumed'} ${t.tag}: ${describe(answer)}`);
    if (!answer?.ok) return;
    const spans = this.record.paused.get(t.id) ?? [];
    // Paused from when it was asked (a payout made meanwhile is the desk's race to explain); resumed once answered.
    if (verb === 'pause') spans.push({ from: asked, to: null });
    else if (spans.length > 0 && spans[spans.length - 1]!.to === null) spans[spans.length - 1]!.to = this.world.now;
    this.record.paused.set(t.id, spans);
  }

  /** The next release of an occurrence: a made one waiting for its time, or a template's next date. */
  private async nextRelease(): Promise<number | null> {
    const { port } = await this.world.desk.journal();
    const times = (await port.listSchedules({ states: ['SCHEDULED'] })).filter((s) => s.id.startsWith('rec-') && s.at > this.world.now).map((s) => s.at);
    for (const t of this.record.templates) {
      const next = (await this.view(t))?.next;
      if (next) times.push(Date.parse(next.releaseAt));
    }
    return times.length > 0 ? Math.min(...times) : null;
  }

  private async pass(beforeMin: number, crash: boolean, looks: 1 | 2): Promise<void> {
    const next = await this.nextRelease();
    if (next === null) return;
    this.ownStartLook = looks === 2;
    await this.world.down(Math.max(0, next - beforeMin * 60_000 - this.world.now), crash);
    this.ownStartLook = false;
    if (looks === 1) return;
    // Two looks at once: the production generator twice over this desk's runtime, as the app's unlock and timer call it.
    const profile = this.world.desk.ctx.profiles.find(SIM_PROFILE);
    if (!profile) return;
    const both = await this.world.during(Promise.all([runRecurring(this.world.desk.runtime, profile), runRecurring(this.world.desk.runtime, profile)]));
    const made = both.settled ? both.value.map((r) => r.created.map((c) => c.date).join(' ') || 'none').join(' / ') : 'no answer';
    this.log(`two generator looks at once made: ${made}`);
  }

  private async crashMidRun(beforeMin: number, turns: number, downMs: number): Promise<void> {
    const next = await this.nextRelease();
    const profile = this.world.desk.ctx.profiles.find(SIM_PROFILE);
    if (next === null || !profile) return;
    this.ownStartLook = true;
    await this.world.down(Math.max(0, next - beforeMin * 60_000 - this.world.now), false);
    this.ownStartLook = false;
    // The look of the desk that crashes: whatever it had not written when it crashed is never written.
    void runRecurring(this.world.desk.runtime, profile).catch(() => null);
    for (let i = 0; i < turns; i++) await Promise.resolve();
    this.log(`the desk crashes ${turns} turns into the generator's look`);
    await this.world.down(downMs, true);
  }

  private async forget(): Promise<void> {
    const { port } = await this.world.desk.journal();
    const db = (port as unknown as { db?: { exec(sql: string): void } }).db;
    if (!db) return;
    db.exec('DROP TRIGGER IF EXISTS recurring_occurrences_no_delete; DELETE FROM recurring_occurrences;');
    this.log('someone with the journal deleted the recurring occurrence rows');
  }
}

/** Invariant 10 at quiescence (see the top of this file). */
export async function recurringViolations(model: GatewayModel, person: Person, journal: SimJournal): Promise<Violation[]> {
  const record = records.get(person);
  if (!record || record.templates.length === 0) return [];
  const violations: Violation[] = [];
  const byTag = new Map(record.templates.map((t) => [t.tag, t]));
  const occurrenceOf = (reference: string | null): { t: TemplateRecord; date: string } | null => {
    const m = /^(T\d+) (\d{4}-\d\d-\d\d)$/.exec(reference ?? '');
    const t = m ? byTag.get(m[1]!) : undefined;
    return t ? { t, date: m![2]! } : null;
  };
  const made = new Map<string, string[]>();
  const keyOfPayout = new Map<string, string>();
  const releaseOf = new Map<string, number | null>();
  for (const p of await payoutsOf(journal.port)) {
    const o = occurrenceOf(p.reference);
    if (!o) {
      if (p.id.startsWith('rec-')) violations.push({ invariant: 10, kind: 'occurrence without its date', message: `${p.id} has reference ${p.reference ?? 'none'}, not its template's and date's` });
      continue;
    }
    const key = `${o.t.id} ${o.date}`;
    made.set(key, [...(made.get(key) ?? []), p.id]);
    keyOfPayout.set(p.id, key);
    const release = releaseInstant(o.date, TIME_OF_DAY, SIM_PROFILE_ZONE);
    releaseOf.set(p.id, release);
    const pause = release === null ? undefined : record.paused.get(o.t.id)?.find((s) => s.from <= release && (s.to === null || release < s.to) && p.createdAt >= s.from);
    if (pause) violations.push({ invariant: 10, kind: 'made while paused', message: `${p.id} for ${o.t.tag} ${o.date} was made at ${new Date(p.createdAt).toISOString()}, its release falling in a pause from ${new Date(pause.from).toISOString()}` });
    if (record.skipped.has(key)) violations.push({ invariant: 10, kind: 'skipped date made', message: `${o.t.tag} ${o.date} was skipped, yet payout ${p.id} was made for it` });
    if (p.amountMinor !== o.t.amountMinor) violations.push({ invariant: 10, kind: 'other amount', message: `${p.id} for ${o.t.tag} ${o.date} is ${p.amountMinor}, not ${o.t.amountMinor}` });
    const schedule = await journal.port.schedule('payout', p.id);
    if (!schedule) violations.push({ invariant: 10, kind: 'occurrence not scheduled', message: `${p.id} for ${o.t.tag} ${o.date} has no schedule: nothing holds it to its date` });
    else if (schedule.at !== release) violations.push({ invariant: 10, kind: 'scheduled at another time', message: `${p.id} for ${o.t.tag} ${o.date} is scheduled for ${new Date(schedule.at).toISOString()}, not its release ${release === null ? 'none' : new Date(release).toISOString()}` });
  }
  for (const [key, ids] of made) {
    if (ids.length > 1) violations.push({ invariant: 10, kind: 'two payouts for one date', message: `${key}: ${ids.length} payouts in the journal (${ids.join(', ')})` });
  }
  const created = new Map<string, Set<string>>();
  for (const arrival of model.arrivals) {
    const key = keyOfPayout.get(arrival.id);
    if (!key) continue;
    created.set(key, (created.get(key) ?? new Set()).add(arrival.id));
    if (record.skipped.has(key)) violations.push({ invariant: 10, kind: 'skipped date paid', message: `${arrival.id} of skipped ${key} reached the gateway` });
    const release = releaseOf.get(arrival.id);
    if (release != null && arrival.sentAt < release) {
      violations.push({ invariant: 10, kind: 'left before its date', message: `${arrival.id} of ${key} left the desk at ${new Date(arrival.sentAt).toISOString()}, before its release ${new Date(release).toISOString()}` });
    }
  }
  for (const [key, ids] of created) {
    if (ids.size > 1) violations.push({ invariant: 10, kind: 'two creates for one date', message: `${key}: creates of ${ids.size} payouts reached the gateway (${[...ids].join(', ')})` });
  }
  return violations;
}
