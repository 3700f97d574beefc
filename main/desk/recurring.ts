// recurring:* — recurring payouts (issue 27): a template pays a payee of the book an amount on the dates of a rule
// (main/schedules/recurrence.ts), each date its own scheduled payout made `leadDays` before it releases, so it can be
// approved in time. The payout is made the way a person's scheduled payout is (engine.submitPayout with executeOn
// and the preparer, who signs it under dual control); the calendar releases it at its time.
//
// Who prepares an occurrence: under dual control, the person who made the template, and only while they are unlocked
// at a desk (their signature says they prepared it; nobody signs in their name). This desk looks when someone
// unlocks, every few minutes while the app runs, and on `recurring run`. A date whose release passes before its maker
// was at a desk is MISSED, not paid late: a person pays it by hand if it is still owed. Without dual control any desk
// with the profile open makes them. A maker who leaves: end the template and have a preparer add it again.
//
// Never two payouts for one date: a desk first claims the date (the store's key on template and date; of two desks
// one wins), then makes the payout under an id derived from the template and the date, so a claim left by a desk that
// stopped half way is taken over later (after CLAIM_STALE_MS) and lands on the same journal row if it was made.
import { randomUUID } from 'node:crypto';
import type { RecurringInput, RecurringOccurrenceView, RecurringRunResult, RecurringView } from '../../contract/api';
import { deskActor } from '../audit/actor';
import { DEFAULT_PAYMENT_METHOD, validatePayout, type PayoutDraft } from '../domain/payout';
import { MoneyError, parseMinor } from '../domain/money';
import { EngineError } from '../engine/payout-engine';
import { stateOf, type PayeeVersion } from '../payees/payee';
import { heldRoleAt } from '../people/roles';
import type { Profile } from '../profiles/profile-schema';
import { describeExecution, DEFAULT_RELEASE_TIME, isValidZone } from '../schedules/execution';
import { checkRecurrence, dateIn, describeRule, occurrenceDates, parseRule, RecurrenceError, releaseOf, ruleText, seriesDates, isOccurrence, type Recurrence } from '../schedules/recurrence';
import {
  endOf, occurrencePayoutId, patternProblem, referenceFor, type RecurringOccurrence, type RecurringStore, type RecurringTemplate, type TemplateState,
} from '../schedules/recurring';
import { money, type DecimalsOf } from './convert';
import type { CurrencyCache } from './currency-cache';
import { personActor, preparedByFor } from './dual-control';
import type { ProfileAreaService } from './profile-binding';
import { announcedCallbackUrl } from './profile-engine';
import type { DeskRuntime } from './runtime';
import { profileZone } from './schedules';
import { DeskError } from './services';

const DAY_MS = 86_400_000;
export const DEFAULT_LEAD_DAYS = 5;
/** An occurrence made less than this before its release could not be stored ahead of it (executionFor refuses the past). */
const MIN_AHEAD_MS = 60_000;
/** A CREATING claim untouched this long was left by a desk that stopped between claim and payout: another takes it over. */
export const CLAIM_STALE_MS = 120_000;
/** How often a running desk looks for occurrences to make. */
export const RECURRING_TICK_MS = 5 * 60_000;
const SHOWN_OCCURRENCES = 24;

const recurrenceOf = (t: RecurringTemplate): Recurrence => ({ rule: parseRule(t.rule), start: t.start, end: endOf(t), timeOfDay: t.timeOfDay, zone: t.zone });
const iso = (ms: number): string => new Date(ms).toISOString();

async function storeFor(rt: DeskRuntime, profileId: string): Promise<RecurringStore> {
  return (await rt.storesFor(profileId)).recurring;
}

/** The payee's version in force (a bank change awaiting approval is not paid until approved), or null. */
async function payeeInForce(rt: DeskRuntime, profileId: string, payeeId: string): Promise<PayeeVersion | null> {
  return (await (await rt.payeesFor(profileId)).versions(payeeId)).find((v) => stateOf(v) === 'in force') ?? null;
}

function occurrenceView(rec: Recurrence, date: string, o: RecurringOccurrence | null): RecurringOccurrenceView {
  const release = releaseOf(rec, date);
  return { date, releaseAt: iso(release.at), when: describeExecution(release), state: o?.state ?? 'UPCOMING', payoutId: o?.payoutId ?? null, reason: o?.reason ?? null };
}

function templateView(t: RecurringTemplate, rows: readonly RecurringOccurrence[], payee: PayeeVersion | null, decimalsOf: DecimalsOf, now: number): RecurringView {
  const rec = recurrenceOf(t);
  const recorded = new Set(rows.map((o) => o.date));
  let next: RecurringView['next'] = null;
  if (t.state !== 'ENDED') {
    // The first date neither recorded nor passed; a year ahead is far enough for every rule.
    for (const date of seriesDates(rec, dateIn(now, t.zone, 400))) {
      if (recorded.has(date)) continue;
      const release = releaseOf(rec, date);
      if (release.at <= now) continue;
      next = { ...occurrenceView(rec, date, null), madeFrom: iso(release.at - t.leadDays * DAY_MS) };
      break;
    }
  }
  return {
    id: t.id, payeeId: t.payeeId, payeeName: payee?.name ?? null, money: money(t.amountMinor, t.currencyCode, decimalsOf), referencePattern: t.referencePattern,
    rule: t.rule, ruleText: describeRule(rec.rule), start: t.start,
    end: t.endCount !== null ? `after ${t.endCount} payment${t.endCount === 1 ? '' : 's'}` : t.endUntil !== null ? `until ${t.endUntil}` : null,
    timeOfDay: t.timeOfDay, zone: t.zone, leadDays: t.leadDays, state: t.state, createdBy: t.createdBy, createdAt: iso(t.createdAt), next,
    occurrences: [...rows].sort((a, b) => (a.date < b.date ? 1 : -1)).slice(0, SHOWN_OCCURRENCES).map((o) => occurrenceView(rec, o.date, o)),
  };
}

/**
 * Who may prepare occurrences at this desk now, without counting as the person's use (a timer must not keep an idle
 * desk unlocked): under dual control the unlocked preparer (only their own templates), else everyone's templates.
 */
async function preparerAtDesk(rt: DeskRuntime, profileId: string, now: number): Promise<{ personId: string | undefined; onlyTheirs: boolean } | { waiting: string }> {
  const state = await rt.controlFor(profileId);
  const session = rt.peekSession(profileId);
  if (!state.enforced) return { personId: session?.personId, onlyTheirs: false };
  if (state.problem) return { waiting: state.problem.message };
  if (!session) return { waiting: 'dual control is on: occurrences are made while the person who added the recurring payment is unlocked at a desk' };
  const person = state.people.find((p) => p.id === session.personId && p.publicKey === session.publicKey);
  if (!person || person.revokedAt !== null || !heldRoleAt(person, 'preparer', now)) return { waiting: 'the unlocked person does not hold the preparer role: nothing is made at this desk' };
  return { personId: person.id, onlyTheirs: true };
}

interface RunContext {
  rt: DeskRuntime;
  profile: Profile;
  store: RecurringStore;
  now: number;
  actor: string;
  preparedBy: string | undefined;
  result: RecurringRunResult;
}

/** Makes the payout of a claimed occurrence; settles the claim CREATED or FAILED (left CREATING when the outcome is unknown). */
async function makeOccurrence(c: RunContext, t: RecurringTemplate, date: string, payoutId: string): Promise<void> {
  const { rt, profile, store } = c;
  const fail = async (reason: string) => {
    await store.settleOccurrence(t.id, date, { state: 'FAILED', reason, at: c.now });
    c.result.failed.push({ templateId: t.id, date, reason });
    await rt.audit(profile.id, { action: 'recurring.occurrence-failed', subject: t.id, details: { date, payoutId, reason } });
  };
  const journal = await rt.journalFor(profile.id);
  const created = async () => {
    await store.settleOccurrence(t.id, date, { state: 'CREATED', reason: null, at: c.now });
    c.result.created.push({ templateId: t.id, date, payoutId });
  };
  // Made already by a desk that stopped before settling its claim: the derived id finds it.
  if (await journal.getPayment('payout', payoutId)) return created();
  const release = releaseOf(recurrenceOf(t), date);
  if (release.at <= c.now + MIN_AHEAD_MS) return fail(`its release ${describeExecution(release)} passed before its payout could be made`);
  const payee = await payeeInForce(rt, profile.id, t.payeeId);
  if (!payee) return fail(`payee ${t.payeeId} has no details in force (removed, or its first version awaits approval)`);
  const callbackUrl = announcedCallbackUrl(profile);
  const reference = referenceFor(t.referencePattern, date);
  const draft: PayoutDraft = {
    idPayout: payoutId, amountMinor: t.amountMinor, currencyCode: t.currencyCode, accountName: payee.name, accountNumber: payee.accountNumber,
    paymentOperatorCode: payee.operatorCode, paymentMethodCode: DEFAULT_PAYMENT_METHOD, emailAddress: payee.emailAddress,
    ...(callbackUrl ? { callbackUrl } : {}), ...(reference ? { reference } : {}),
  };
  const problems = validatePayout(draft, profile.maxAmountMinor ?? undefined);
  if (problems.length > 0) return fail(problems.map((p) => p.message).join('; '));
  try {
    const engine = await rt.engineFor(profile.id);
    await engine.submitPayout(draft, { executeOn: release, actor: c.actor, ...(c.preparedBy ? { preparedBy: c.preparedBy } : {}) });
  } catch (error) {
    // Another desk that took over a stale claim at the same moment stored it first: the same payout, made once.
    const stored = await Promise.resolve(journal.getPayment('payout', payoutId)).catch(() => undefined);
    if (stored) return created();
    if (error instanceof EngineError) return fail(error.message);
    // Unknown (the database lost, the signing refused): the claim stays, and is taken over once stale.
    rt.log.warn('a recurring payment occurrence was not made', { profileId: profile.id, templateId: t.id, date, message: error instanceof Error ? error.message : String(error) });
    return;
  }
  await created();
  await rt.audit(profile.id, { action: 'recurring.occurrence-made', subject: t.id, details: { date, payoutId, executeAt: release.at, preparedBy: c.preparedBy ?? null } });
}

async function runTemplate(c: RunContext, t: RecurringTemplate, rows: readonly RecurringOccurrence[], mayMake: boolean): Promise<void> {
  const rec = recurrenceOf(t);
  const recorded = new Map(rows.map((o) => [o.date, o]));
  const horizon = c.now + t.leadDays * DAY_MS;
  for (const date of occurrenceDates(rec, t.start, dateIn(horizon, t.zone, 1))) {
    const release = releaseOf(rec, date);
    if (release.at > horizon || release.at < t.activeSince) continue;
    const row = recorded.get(date);
    const payoutId = occurrencePayoutId(t.id, date);
    if (!row && release.at <= c.now + MIN_AHEAD_MS) {
      // Its whole lead time passed with nobody who could prepare it at a desk: said, not paid late.
      const reason = `nobody who could prepare it was at a desk before its release ${describeExecution(release)}`;
      if (await c.store.recordOccurrence({ templateId: t.id, date, payoutId: null, state: 'MISSED', reason, actor: c.actor, createdAt: c.now })) {
        c.result.missed.push({ templateId: t.id, date });
        await c.rt.audit(c.profile.id, { action: 'recurring.occurrence-missed', subject: t.id, details: { date, reason } });
      }
      continue;
    }
    if (!mayMake) continue;
    if (!row) {
      if (await c.store.recordOccurrence({ templateId: t.id, date, payoutId, state: 'CREATING', reason: null, actor: c.actor, createdAt: c.now })) await makeOccurrence(c, t, date, payoutId);
    } else if (row.state === 'CREATING' && row.updatedAt < c.now - CLAIM_STALE_MS) {
      if (await c.store.reclaimOccurrence(t.id, date, { actor: c.actor, at: c.now, staleBefore: c.now - CLAIM_STALE_MS })) await makeOccurrence(c, t, date, payoutId);
    }
  }
}

/**
 * Makes the occurrences of the profile's active templates (or of one) whose release is within their lead days, and
 * records those whose release passed unmade as MISSED. Safe on any number of desks at once.
 */
export async function runRecurring(rt: DeskRuntime, profile: Profile, options: { templateId?: string; now?: number } = {}): Promise<RecurringRunResult> {
  const now = options.now ?? Date.now();
  const store = await storeFor(rt, profile.id);
  const result: RecurringRunResult = { created: [], missed: [], failed: [], waiting: null };
  const all = await store.templates({ states: ['ACTIVE'] });
  const templates = options.templateId ? all.filter((t) => t.id === options.templateId) : all;
  if (templates.length === 0) return result;
  const who = await preparerAtDesk(rt, profile.id, now);
  if ('waiting' in who) result.waiting = who.waiting;
  const stores = await rt.storesFor(profile.id);
  const c: RunContext = { rt, profile, store, now, actor: stores.team?.deskId ?? deskActor(), preparedBy: 'waiting' in who ? undefined : who.personId, result };
  const rows = await store.occurrences(templates.map((t) => t.id));
  for (const t of templates) {
    const mayMake = !('waiting' in who) && (!who.onlyTheirs || t.createdBy === who.personId);
    await runTemplate(c, t, rows.filter((o) => o.templateId === t.id), mayMake);
  }
  return result;
}

/** Looks for occurrences to make when someone unlocks and every RECURRING_TICK_MS on profiles whose engine runs. */
export function startRecurring(rt: DeskRuntime, tickMs = RECURRING_TICK_MS): { stop(): void } {
  const running = new Map<string, Promise<unknown>>();
  const look = (profileId: string) => {
    if (running.has(profileId)) return;
    const profile = rt.ctx.profiles.find(profileId);
    if (!profile) return;
    const work = runRecurring(rt, profile)
      .catch((error: unknown) => rt.log.warn('recurring payments: the look for due occurrences failed', { profileId, message: error instanceof Error ? error.message : String(error) }))
      .finally(() => running.delete(profileId));
    running.set(profileId, work);
  };
  const unsubscribe = rt.events.on('sessionChanged', (change) => {
    if (change.unlocked) look(change.profileId);
  });
  const timer = setInterval(() => {
    for (const p of rt.ctx.profiles.list()) if (rt.isStarted(p.id)) look(p.id);
  }, tickMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}

/** A rule, date, time or zone that cannot be used, as the desk says it (anything else thrown again). */
function recurrenceProblem(error: unknown): unknown {
  if (error instanceof RecurrenceError) return new DeskError('BAD_RECURRENCE', `The recurring payment was not added: ${error.message}`, false, [{ field: error.code === 'BAD_RULE' ? 'rule' : error.code === 'BAD_END' ? 'end' : error.code === 'BAD_TIME' ? 'timeOfDay' : 'start', code: error.code, message: error.message }]);
  return error;
}

export function recurringService(rt: DeskRuntime, currencies: CurrencyCache): ProfileAreaService<'recurring'> {
  const view = async (profile: Profile, t: RecurringTemplate): Promise<RecurringView> => {
    const rows = await (await storeFor(rt, profile.id)).occurrences([t.id]);
    return templateView(t, rows, await payeeInForce(rt, profile.id, t.payeeId), currencies.decimalsOf(profile.id), Date.now());
  };
  const mustGet = async (profile: Profile, id: string): Promise<RecurringTemplate> => {
    const t = await (await storeFor(rt, profile.id)).template(id);
    if (!t) throw new DeskError('NOT_FOUND', `No recurring payment ${id} on this profile`);
    return t;
  };
  /** Pause, resume, end: a preparer's act under dual control (audited with who). */
  const move = async (profile: Profile, id: string, from: readonly TemplateState[], to: TemplateState, verb: string): Promise<RecurringView> => {
    const t = await mustGet(profile, id);
    const by = await preparedByFor(rt, profile.id);
    const moved = await (await storeFor(rt, profile.id)).setTemplateState(id, { from, to, at: Date.now(), by: by ?? null });
    if (!moved) throw new DeskError('BAD_STATE', `Recurring payment ${id} is ${t.state.toLowerCase()}: it cannot be ${verb}`);
    await rt.audit(profile.id, { ...(by ? { actor: personActor({ id: by }) } : {}), action: `recurring.${verb}`, subject: id, details: { from: t.state, to } });
    if (to === 'ACTIVE') await runRecurring(rt, profile, { templateId: id });
    return view(profile, moved);
  };
  return {
    async list(profile, { payeeId, states }) {
      const store = await storeFor(rt, profile.id);
      const templates = await store.templates({ ...(payeeId ? { payeeId } : {}), ...(states ? { states } : {}) });
      const rows = await store.occurrences(templates.map((t) => t.id));
      const payees = await rt.payeesFor(profile.id);
      const inForce = new Map((await payees.versionsOf([...new Set(templates.map((t) => t.payeeId))])).filter((v) => stateOf(v) === 'in force').map((v) => [v.payeeId, v]));
      const decimalsOf = currencies.decimalsOf(profile.id);
      const now = Date.now();
      return { items: templates.map((t) => templateView(t, rows.filter((o) => o.templateId === t.id), inForce.get(t.payeeId) ?? null, decimalsOf, now)) };
    },
    async add(profile, input: RecurringInput) {
      const createdBy = await preparedByFor(rt, profile.id);
      const payee = await payeeInForce(rt, profile.id, input.payeeId);
      if (!payee) throw new DeskError('NOT_FOUND', `Payee ${input.payeeId} has no details in force in the book: add it (or have its change approved) first`);
      const decimalsOf = await currencies.freshDecimalsOf(profile.id);
      let amountMinor: number;
      try {
        amountMinor = parseMinor(input.amount, decimalsOf(input.currencyCode));
      } catch (error) {
        if (!(error instanceof MoneyError)) throw error;
        throw new DeskError('VALIDATION', `The recurring payment was not added: ${error.message}`, false, [{ field: 'amount', code: error.code, message: error.message }]);
      }
      const reference = input.reference?.trim() || payee.referenceDefault || null;
      const badPattern = reference ? patternProblem(reference) : null;
      if (badPattern) throw new DeskError('VALIDATION', `The recurring payment was not added: ${badPattern}`, false, [{ field: 'reference', code: 'BAD_PATTERN', message: badPattern }]);
      if (input.endCount !== undefined && input.endUntil !== undefined) throw new DeskError('VALIDATION', 'The recurring payment was not added: give a number of payments or a last date, not both');
      const zone = input.zone ?? profileZone(profile);
      const now = Date.now();
      let rec: Recurrence;
      try {
        if (!isValidZone(zone)) throw new RecurrenceError('BAD_TIME', `"${zone}" is not a time zone name (e.g. Europe/Berlin)`);
        const end = input.endCount !== undefined ? { count: input.endCount } : input.endUntil !== undefined ? { until: input.endUntil } : null;
        rec = { rule: parseRule(input.rule), start: input.start ?? dateIn(now, zone), end, timeOfDay: input.timeOfDay ?? DEFAULT_RELEASE_TIME, zone };
        checkRecurrence(rec);
      } catch (error) {
        throw recurrenceProblem(error);
      }
      const start = rec.start;
      // The same rules as a payout of the form, checked once here with the payee as it is now (each occurrence again).
      const problems = validatePayout({
        idPayout: occurrencePayoutId(randomUUID(), start), amountMinor, currencyCode: input.currencyCode, accountName: payee.name, accountNumber: payee.accountNumber,
        paymentOperatorCode: payee.operatorCode, paymentMethodCode: DEFAULT_PAYMENT_METHOD, emailAddress: payee.emailAddress,
      }, profile.maxAmountMinor ?? undefined);
      if (problems.length > 0) throw new DeskError('VALIDATION', `The recurring payment was not added: ${problems.map((p) => p.message).join('; ')}`, false, problems.map((p) => ({ field: p.field === 'amountMinor' ? 'amount' : p.field, code: p.code, message: p.message })));
      const t: RecurringTemplate = {
        id: randomUUID(), payeeId: payee.payeeId, amountMinor, currencyCode: input.currencyCode, referencePattern: reference, rule: ruleText(rec.rule),
        start, endCount: input.endCount ?? null, endUntil: input.endUntil ?? null, timeOfDay: rec.timeOfDay, zone, leadDays: input.leadDays ?? DEFAULT_LEAD_DAYS,
        state: 'ACTIVE', activeSince: now, createdBy: createdBy ?? null, createdAt: now, updatedAt: now, changedBy: null,
      };
      await (await storeFor(rt, profile.id)).addTemplate(t);
      await rt.audit(profile.id, {
        ...(createdBy ? { actor: personActor({ id: createdBy }) } : {}), action: 'recurring.added', subject: t.id,
        details: { payeeId: t.payeeId, amountMinor, currencyCode: t.currencyCode, rule: t.rule, start, endCount: t.endCount, endUntil: t.endUntil, timeOfDay: t.timeOfDay, zone, leadDays: t.leadDays },
      });
      await runRecurring(rt, profile, { templateId: t.id, now });
      return view(profile, t);
    },
    pause: (profile, { id }) => move(profile, id, ['ACTIVE'], 'PAUSED', 'paused'),
    resume: (profile, { id }) => move(profile, id, ['PAUSED'], 'ACTIVE', 'resumed'),
    end: (profile, { id }) => move(profile, id, ['ACTIVE', 'PAUSED'], 'ENDED', 'ended'),
    async skip(profile, { id, date, reason }) {
      const t = await mustGet(profile, id);
      if (t.state === 'ENDED') throw new DeskError('BAD_STATE', `Recurring payment ${id} has ended: there is nothing to skip`);
      const rec = recurrenceOf(t);
      if (!isOccurrence(rec, date)) throw new DeskError('BAD_DATE', `${date} is not a date of this recurring payment (${describeRule(rec.rule)} from ${t.start})`);
      if (releaseOf(rec, date).at <= Date.now()) throw new DeskError('BAD_DATE', `${date} has passed: there is nothing to skip`);
      const by = await preparedByFor(rt, profile.id);
      const store = await storeFor(rt, profile.id);
      const why = reason ?? 'skipped by a person';
      const recorded = await store.recordOccurrence({ templateId: id, date, payoutId: null, state: 'SKIPPED', reason: why, actor: by ? personActor({ id: by }) : deskActor(), createdAt: Date.now() });
      if (!recorded) {
        const row = (await store.occurrences([id])).find((o) => o.date === date);
        const payout = row?.payoutId ? `: its payout ${row.payoutId} is made; cancel it in the Calendar (schedule cancel payout ${row.payoutId})` : '';
        throw new DeskError('ALREADY_RECORDED', `${date} of recurring payment ${id} is ${row?.state.toLowerCase() ?? 'recorded'} already${payout}`);
      }
      await rt.audit(profile.id, { ...(by ? { actor: personActor({ id: by }) } : {}), action: 'recurring.skipped', subject: id, details: { date, reason: why } });
      return view(profile, t);
    },
    async run(profile, { id }) {
      if (id) await mustGet(profile, id);
      return runRecurring(rt, profile, id ? { templateId: id } : {});
    },
  };
}
